//go:build unix

package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profilesHome is a home whose config file has profiles a (current, its
// key in the key file) and b (no key stored).
func profilesHome(t *testing.T) env {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "abx")
	if err := os.MkdirAll(filepath.Join(dir, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `current: a
profiles:
  a:
    provider: alicloud-container
    domain: a.example.com
    key: file
  b:
    provider: alicloud-container
    domain: b.example.com
`
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keys", "a"), []byte("sk-stored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return env{"HOME": home}
}

// No profile can be made current again with 'profile use --none' (as
// 'kubectl config unset current-context'); an empty NAME is refused,
// pointing there, rather than taken for it.
func TestProfileUseNone(t *testing.T) {
	t.Parallel()
	e := profilesHome(t)
	r := run(t, e, false, "profile", "use", "")
	if r.code != 2 || !strings.Contains(r.stderr, "--none") {
		t.Errorf("use \"\": exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, e, false, "profile", "use", "--none", "a"); r.code != 2 || !strings.Contains(r.stderr, "error[E1001]") {
		t.Errorf("use --none a: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, e, false, "profile", "use"); r.code != 2 || !strings.Contains(r.stderr, "--none") {
		t.Errorf("use: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run(t, e, false, "profile", "use", "--none")
	if r.code != 0 || r.stderr != "No profile is current now (it was a)\n" {
		t.Fatalf("use --none: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, e, false, "profile", "list", "--jq", `[.[] | select(.current)] | length`); r.stdout != "0\n" {
		t.Errorf("after use --none: %q %q", r.stdout, r.stderr)
	}
	if r := run(t, e, false, "profile", "use", "--none"); r.code != 0 || r.stderr != "No profile is current\n" {
		t.Errorf("a second use --none: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run(t, e, false, "profile", "use", "b"); r.code != 0 || r.stderr != "Current profile: b\n" {
		t.Errorf("use b: exit %d, stderr %q", r.code, r.stderr)
	}
}

// profile show says where a key kept in a file is: its path.
func TestProfileShowSaysWhereTheKeyFileIs(t *testing.T) {
	t.Parallel()
	e := profilesHome(t)
	path := filepath.Join(e["HOME"], ".config", "abx", "keys", "a")
	r := run(t, e, false, "profile", "show", "a")
	if !strings.Contains(r.stdout, "key\tfile "+path+"\n") {
		t.Errorf("show a: %q", r.stdout)
	}
	r = run(t, e, false, "profile", "show", "a", "-o", "json")
	var got struct{ Key, KeyPath string }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || got.Key != "file" || got.KeyPath != path {
		t.Errorf("show a -o json: %+v %v", got, err)
	}
	r = run(t, e, false, "profile", "show", "b", "-o", "json")
	if strings.Contains(r.stdout, "keyPath") {
		t.Errorf("show b -o json: %q", r.stdout)
	}
}

// abx config names a key from the profile's key file apart from one given
// with --api-key-file: "keyfile" and "file".
func TestConfigNamesTheKeyFileApart(t *testing.T) {
	t.Parallel()
	e := profilesHome(t)
	source := func(args ...string) string {
		r := run(t, e, false, append([]string{"config", "--jq", `.settings[] | select(.key == "api_key") | .source`}, args...)...)
		return strings.TrimSpace(r.stdout)
	}
	if got := source(); got != "keyfile" {
		t.Errorf("the profile's key file: %q", got)
	}
	given := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(given, []byte("sk-given\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := source("--api-key-file", given); got != "file" {
		t.Errorf("--api-key-file: %q", got)
	}
	r := run(t, e, false, "config")
	if !strings.Contains(r.stdout, "api_key\t(set, redacted)\tkey file of profile a\t") {
		t.Errorf("config: %q", r.stdout)
	}
}

// login with the key's variable exported says that the variable, not the
// key it saves, is what commands in that environment use (as gh auth
// login says of GH_TOKEN); without a key to save, it says how to pass the
// variable's.
func TestLoginSaysAnExportedKeyWins(t *testing.T) {
	t.Parallel()
	_, cluster := fakeManager(t)
	e := env{"HOME": t.TempDir(), "ABX_ALICLOUD_CONTAINER_API_KEY": cluster["ABX_ALICLOUD_CONTAINER_API_KEY"]}
	args := []string{"login", "--base-url", cluster["ABX_ALICLOUD_CONTAINER_BASE_URL"]}
	io, in, _, errOut := testStreams()
	in.WriteString(cluster["ABX_ALICLOUD_CONTAINER_API_KEY"])
	if code := runWith(io, e, append(args, "--with-key")...); code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	if want := "warning: ABX_ALICLOUD_CONTAINER_API_KEY is set: where it is, commands use it, not the key saved in profile default (unset it to use the profile's)"; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr %q lacks %q", errOut, want)
	}
	r := run(t, e, false, args...)
	if r.code != 2 || !strings.Contains(r.stderr, `printf %s "$ABX_ALICLOUD_CONTAINER_API_KEY" | abx login --with-key`) {
		t.Errorf("no key to save: exit %d, stderr %q", r.code, r.stderr)
	}
}
