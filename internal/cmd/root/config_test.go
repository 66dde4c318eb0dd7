//go:build unix

package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigShowsSourcesAndHidesTheKey(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	r := run(t, e, false, "config", "-o", "json", "--protocol", "native", "--request-timeout", "45")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, testKey) {
		t.Fatal("the API key is shown")
	}
	var got struct {
		Settings []struct{ Key, Value, Source string }
		Problems []any
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"protocol":        {"native", "flag"}, // flag beats env
		"api_key":         {"(set, redacted)", "env"},
		"envd_port":       {"49983", "default"},
		"request_timeout": {"45", "flag"},
		"domain":          {"", "unset"},
	}
	for _, s := range got.Settings {
		if w, ok := want[s.Key]; ok && (s.Value != w[0] || s.Source != w[1]) {
			t.Errorf("%s = %q from %s, want %q from %s", s.Key, s.Value, s.Source, w[0], w[1])
		}
	}
	if len(got.Problems) != 0 {
		t.Errorf("problems %v", got.Problems)
	}
}

func TestConfigListsWhatIsMissing(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_BASE_URL"] = ""
	e["ABX_ALICLOUD_CONTAINER_API_KEY"] = ""
	r := run(t, e, false, "config")
	if r.code != 0 {
		t.Fatalf("abx config works with incomplete config: exit %d", r.code)
	}
	for _, want := range []string{"E1003]: no domain configured", "E1003]: no API key configured"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	if !strings.Contains(r.stdout, "protocol\tnative\tdefault\tABX_ALICLOUD_CONTAINER_PROTOCOL") {
		t.Errorf("stdout %q", r.stdout)
	}
}

func TestAPIKeyFromFileOrStdin(t *testing.T) {
	t.Parallel()
	srv, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_API_KEY"] = ""
	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte(testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := run(t, e, false, "list", "--api-key-file", keyFile); r.code != 0 {
		t.Fatalf("from a file: %d %s", r.code, r.stderr)
	}
	e["ABX_ALICLOUD_CONTAINER_API_KEY_FILE"] = "-"
	io, in, _, errOut := testStreams()
	in.WriteString(testKey)
	if code := runWith(io, e, "list"); code != 0 {
		t.Fatalf("from stdin: %d %s", code, errOut.String())
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("X-API-Key") != testKey {
			t.Errorf("sent key %q", r.Header.Get("X-API-Key"))
		}
	}
	r := run(t, e, false, "config")
	if !strings.Contains(r.stdout, "api_key\t"+"(set, redacted)"+"\tfile") {
		t.Errorf("config shows %q", r.stdout)
	}
}

func TestDebugTraceRedactsSecrets(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	r := run(t, e, false, "list", "--debug")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if strings.Contains(r.stderr, testKey) {
		t.Fatalf("the key leaked into --debug: %s", r.stderr)
	}
	for _, want := range []string{"> GET http://127.0.0.1:", "/v2/sandboxes?limit=100", "> X-Api-Key: REDACTED", "< 200 OK"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("trace lacks %q:\n%s", want, r.stderr)
		}
	}
}

// abx config is the first command a newcomer runs: with no provider at all
// it still succeeds, and says what to do as its problem.
func TestConfigWithoutAProviderSucceeds(t *testing.T) {
	t.Parallel()
	r := run(t, env{}, false, "config")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "error[E1005]: no provider selected; run 'abx login' to make a profile") {
		t.Errorf("stderr %q", r.stderr)
	}
	r = run(t, env{}, false, "config", "-o", "json")
	var got struct {
		Provider string
		Settings []any
		Problems []struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %q: %v", r.code, r.stdout, err)
	}
	if got.Provider != "" || got.Settings == nil || len(got.Settings) != 0 || len(got.Problems) != 1 || got.Problems[0].Code != "E1005" {
		t.Errorf("got %+v", got)
	}
	// An unknown one is a problem of the same kind.
	if r := run(t, env{"ABX_PROVIDER": "nosuch"}, false, "config"); r.code != 0 || !strings.Contains(r.stderr, `unknown provider "nosuch"`) {
		t.Errorf("unknown provider: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A key file or stdin that holds nothing is said to be empty, naming what
// was given: not "no API key configured … or pass --api-key-file" to one
// who passed it.
func TestEmptyKeyFileOrStdinIsSaidEmpty(t *testing.T) {
	t.Parallel()
	e := env{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_DOMAIN": "agents.example.com"}
	io, in, _, errOut := testStreams()
	in.WriteString("\n")
	if code := runWith(io, e, "--api-key-file", "-", "list"); code != 2 ||
		!strings.Contains(errOut.String(), "error[E1003]: cannot use --api-key-file -: stdin held nothing; pipe the key in") {
		t.Errorf("stdin: exit %d, stderr %q", code, errOut.String())
	}
	empty := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(empty, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, e, false, "list", "--api-key-file", empty)
	if r.code != 2 || !strings.Contains(r.stderr, "error[E1003]: cannot use --api-key-file "+empty+": the file holds nothing; put the key in it") {
		t.Errorf("file: exit %d, stderr %q", r.code, r.stderr)
	}
	e["ABX_ALICLOUD_CONTAINER_API_KEY_FILE"] = empty
	if r := run(t, e, false, "list"); r.code != 2 || !strings.Contains(r.stderr, "cannot use ABX_ALICLOUD_CONTAINER_API_KEY_FILE "+empty+": the file holds nothing") {
		t.Errorf("variable: exit %d, stderr %q", r.code, r.stderr)
	}
}

// login --with-key with nothing on stdin says so, and how to pass a key.
func TestLoginWithAnEmptyStdinSaysSo(t *testing.T) {
	t.Parallel()
	e := env{"HOME": t.TempDir()}
	for _, args := range [][]string{{"--with-key"}, {"--api-key-file", "-"}} {
		io, in, _, errOut := testStreams()
		in.WriteString("\n")
		code := runWith(io, e, append([]string{"login", "--base-url", "http://127.0.0.1:1/kruise/api", "--protocol", "private"}, args...)...)
		if code != 2 || !strings.Contains(errOut.String(), "stdin held nothing") || !strings.Contains(errOut.String(), "pipe the key in") ||
			strings.Contains(errOut.String(), "as a flag") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
	if _, err := os.Stat(filepath.Join(e["HOME"], ".config", "abx")); err == nil {
		t.Error("login saved something")
	}
}
