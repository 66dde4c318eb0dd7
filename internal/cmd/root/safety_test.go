//go:build unix

package root

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator"
)

// What a hostile or careless server sends back: the caller's own secrets,
// and controls that would retitle or clear a terminal.
const (
	echoKey     = "e2b_5ecre7ap1key0123456789abcdef01234567"
	echoToken   = "envd-token-5ecre7-0123456789"
	echoTraffic = "traffic-token-5ecre7-0123456789"
	hostileID   = "sb\x1b]0;pwned\x07"
)

// echoServer is a sandbox-manager and data plane (private protocol) on
// 127.0.0.1 that answers every failure with the credentials the request
// carried, in the error body and in a header, and lists sandboxes whose
// fields hold terminal controls.
func echoServer(t *testing.T) env {
	t.Helper()
	mux := http.NewServeMux()
	echo := func(w http.ResponseWriter, status int, words string) {
		w.Header().Set("X-Echo", words)
		w.Header().Set("X-Request-Id", "req-"+words)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": status, "message": "refused " + words + " \x1b]0;pwned\x07\x1b[2J"})
	}
	mux.HandleFunc("GET /kruise/api/v2/sandboxes", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("state") == "paused" {
			echo(w, http.StatusUnauthorized, r.Header.Get("X-API-Key"))
			return
		}
		_ = json.NewEncoder(w).Encode([]map[string]any{
			{"sandboxID": hostileID, "templateID": "\x1b[2J", "state": "\u009b31m", "metadata": map[string]string{"k": "a\tb", "n": "a\nb"}},
			{"sandboxID": "../sb\nx", "templateID": "base", "state": "running"},
			{"sandboxID": "sb-ok", "templateID": "t\x1b[2J", "state": "paused\tx"},
		})
	})
	mux.HandleFunc("GET /kruise/api/sandboxes/{id}", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{
			"sandboxID": r.PathValue("id"), "templateID": "base\x1b[2J", "state": "running", "envdVersion": "0.2.10",
			"envdAccessToken": echoToken, "trafficAccessToken": echoTraffic,
			"metadata": map[string]string{"title": "\x1b]0;pwned\x07"},
		})
	})
	mux.HandleFunc("/kruise/{id}/{port}/", func(w http.ResponseWriter, r *http.Request) {
		echo(w, http.StatusUnauthorized, r.Header.Get("X-Access-Token")+" "+r.Header.Get("E2B-Traffic-Access-Token"))
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return env{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": ts.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  echoKey,
	}
}

// rawControl reports a control character other than newline and tab, the
// only ones abx's own layout uses; colours are allowed on a terminal.
func rawControl(s string, tty bool) (rune, bool) {
	for i, r := range s {
		if r == 0x1b && tty && strings.HasPrefix(s[i:], "\x1b[") && sgrAt(s[i:]) {
			continue
		}
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x1b {
			return r, true
		}
	}
	return 0, false
}

// sgrAt tells whether s starts with a colour sequence (CSI ... m).
func sgrAt(s string) bool {
	for j := 2; j < len(s); j++ {
		switch c := s[j]; {
		case c == 'm':
			return true
		case c == ';' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return false
}

func TestServerSecretsAreNeverPrinted(t *testing.T) {
	t.Parallel()
	e := echoServer(t)
	secrets := []string{echoKey, echoToken, echoTraffic}
	cases := [][]string{
		{"list", "--state", "paused"},
		{"list", "--state", "paused", "-o", "json"},
		{"list", "--state", "paused", "--debug"},
		{"list", "--state", "paused", "--debug", "-o", "json"},
		{"files", "read", "sb1", "/etc/hostname"},
		{"files", "read", "sb1", "/etc/hostname", "-o", "json"},
		{"files", "read", "sb1", "/etc/hostname", "--debug"},
		{"info", "sb1", "--debug"},
	}
	for _, args := range cases {
		for _, tty := range []bool{false, true} {
			r := run(t, e, tty, args...)
			all := r.stdout + r.stderr
			for _, s := range secrets {
				if strings.Contains(all, s) {
					t.Errorf("%q (tty %v) printed the secret %s:\n%s", args, tty, s, all)
				}
			}
			if args[0] != "info" && (r.code == 0 || !strings.Contains(r.stderr, "REDACTED")) {
				t.Errorf("%q (tty %v): exit %d, stderr %q: want a failure that says REDACTED", args, tty, r.code, r.stderr)
			}
			if c, ok := rawControl(all, tty); ok {
				t.Errorf("%q (tty %v) printed the control %U raw:\n%q", args, tty, c, all)
			}
		}
	}

	r := run(t, e, false, "list", "--state", "paused", "-o", "json")
	var je struct {
		Error struct{ Message, RequestID string }
	}
	if err := json.Unmarshal([]byte(r.stderr), &je); err != nil {
		t.Fatalf("JSON error %q: %v", r.stderr, err)
	}
	if je.Error.Message != "refused REDACTED \x1b]0;pwned\x07\x1b[2J (HTTP 401)" || je.Error.RequestID != "req-REDACTED" {
		t.Errorf("JSON error %+v", je.Error)
	}
	if !strings.Contains(r.stderr, `\u001b]0;pwned\u0007`) {
		t.Errorf("JSON error does not escape the controls: %q", r.stderr)
	}

	r = run(t, e, false, "files", "read", "sb1", "/etc/hostname")
	if want := `refused REDACTED REDACTED \x1b]0;pwned\a\x1b[2J`; !strings.Contains(r.stderr, want) {
		t.Errorf("envd's error line %q lacks %q", r.stderr, want)
	}
	r = run(t, e, false, "list", "--state", "paused", "--debug")
	if !strings.Contains(r.stderr, "< X-Echo: REDACTED\n") {
		t.Errorf("the echoed header is not redacted in the trace:\n%s", r.stderr)
	}
}

func TestServerControlsAreEscaped(t *testing.T) {
	t.Parallel()
	e := echoServer(t)

	r := run(t, e, false, "list")
	want := "sb\\x1b]0;pwned\\a\t\\x1b[2J\t\\u009b31m\t-\t-\n" +
		"../sb\\nx\tbase\trunning\t-\t-\n" +
		"sb-ok\tt\\x1b[2J\tpaused\\tx\t-\t-\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("piped list: exit %d\n%q\nwant\n%q\n%s", r.code, r.stdout, want, r.stderr)
	}

	r = run(t, e, false, "list", "-o", "wide")
	if fields := strings.Split(r.stdoutLines[0], "\t"); len(fields) != 9 || fields[8] != `k=a\tb,n=a\nb` {
		t.Errorf("piped wide list row %q", r.stdoutLines[0])
	}

	r = run(t, e, false, "list", "-o", "name")
	if r.stdout != "sb\\x1b]0;pwned\\a\n../sb\\nx\nsb-ok\n" {
		t.Errorf("-o name %q", r.stdout)
	}

	// Tab offers only IDs that can be typed, described safely.
	complete(t, e, "info", "").exactly(t, dirNoFile, "sb-ok\tt\\x1b[2J, paused\\tx")

	r = run(t, e, false, "list", "-o", "json")
	if !strings.Contains(r.stdout, `"sb\u001b]0;pwned\u0007"`) {
		t.Errorf("-o json %q", r.stdout)
	}

	for _, args := range [][]string{{"list"}, {"list", "-o", "wide"}, {"info", "sb1"}} {
		r = run(t, e, true, args...)
		if c, ok := rawControl(r.stdout+r.stderr, true); ok || r.code != 0 {
			t.Errorf("%q on a terminal: exit %d, control %U:\n%q", args, r.code, c, r.stdout+r.stderr)
		}
		if !strings.Contains(r.stdout, `\x1b]0;pwned\a`) {
			t.Errorf("%q on a terminal does not show the escaped name:\n%q", args, r.stdout)
		}
	}
}

func TestConfigNeverShowsABaseURLPassword(t *testing.T) {
	t.Parallel()
	const password = "hunter2-5ecre7"
	e := env{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": "http://admin:" + password + "@127.0.0.1:1/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  echoKey,
	}
	for _, args := range [][]string{{"config"}, {"config", "-o", "json"}, {"list", "--debug"}, {"list", "-o", "json"}} {
		r := run(t, e, false, args...)
		if all := r.stdout + r.stderr; strings.Contains(all, password) || strings.Contains(all, echoKey) {
			t.Errorf("%q printed a secret:\n%s", args, all)
		}
	}
	r := run(t, e, false, "config")
	if !strings.Contains(r.stdout, "http://admin:xxxxx@127.0.0.1:1/kruise/api") {
		t.Errorf("config shows %q", r.stdout)
	}
}

// abx emulator env prints the emulator's own key on purpose, for eval: even
// a shell already configured with that key gets it, in both forms.
func TestEmulatorEnvStillPrintsItsKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	em, err := emulator.Start(emulator.Options{Addr: "127.0.0.1:0", APIKey: echoKey, Templates: []string{"base"}, StateDir: dir, TimeScale: 1, KeepRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = em.Close() })
	e := env{"ABX_PROVIDER": "alicloud-container", "ABX_ALICLOUD_CONTAINER_BASE_URL": em.URL, "ABX_ALICLOUD_CONTAINER_API_KEY": echoKey}
	for _, args := range [][]string{{"emulator", "env", "--state-dir", dir}, {"emulator", "env", "--state-dir", dir, "-o", "json"}} {
		r := run(t, e, false, args...)
		if r.code != 0 || !strings.Contains(r.stdout, echoKey) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}
