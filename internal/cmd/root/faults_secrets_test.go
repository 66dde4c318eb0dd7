//go:build unix

package root

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
)

// A server that echoes a credential back (in an error message, a header
// or a body) does not get it printed: text errors, JSON errors and the
// --debug trace show REDACTED instead.
func TestFaultsSecretsEchoedBack(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	key := f.env["ABX_ALICLOUD_CONTAINER_API_KEY"]
	token := ""
	for _, s := range f.srv.Sandboxes() {
		if s.ID == f.id {
			token = s.EnvdAccessToken
		}
	}
	if token == "" {
		t.Fatal("the sandbox has no envd token")
	}
	apiError := faultproxy.Status(500, fmt.Sprintf(`{"code":500,"message":"key %s is bad"}`, key), "X-Echo", key)
	envdError := faultproxy.Status(500, fmt.Sprintf(`{"code":"internal","message":"token %s refused"}`, token))
	cases := []faultCase{
		{name: "API error, text", args: []string{"info", "ID"}, want: 1,
			rules: []faultproxy.Rule{{Path: `^/kruise/api/sandboxes/`, Fault: apiError}}},
		{name: "API error, JSON", args: []string{"info", "ID", "-o", "json"}, want: 1,
			rules: []faultproxy.Rule{{Path: `^/kruise/api/sandboxes/`, Fault: apiError}}},
		{name: "API error, debug", args: []string{"info", "ID", "--debug"}, want: 1,
			rules: []faultproxy.Rule{{Path: `^/kruise/api/sandboxes/`, Fault: apiError}}},
		{name: "envd error, text", args: []string{"files", "ls", "ID", "/"}, want: 1,
			rules: []faultproxy.Rule{{Path: envdPath + `filesystem\.Filesystem/ListDir$`, Fault: envdError}}},
		{name: "envd error, JSON and debug", args: []string{"files", "ls", "ID", "/", "-o", "json", "--debug"}, want: 1,
			rules: []faultproxy.Rule{{Path: envdPath + `filesystem\.Filesystem/ListDir$`, Fault: envdError}}},
		{name: "envd error under exec", args: []string{"exec", "ID", "--", "true"}, want: 125,
			rules: []faultproxy.Rule{{Path: startPath, Fault: envdError}}},
	}
	for _, c := range cases {
		// A stream's HTTP error has no message Connect reads: nothing to
		// redact there, only nothing to leak.
		echoed := !strings.Contains(c.name, "exec")
		c.check = func(t *testing.T, _ *faulty, r result) {
			all := r.stdout + r.stderr
			if strings.Contains(all, key) || strings.Contains(all, token) {
				t.Errorf("a secret was printed:\n%s", all)
			}
			if echoed && !strings.Contains(all, "REDACTED") {
				t.Errorf("nothing says a secret was there:\n%s", all)
			}
		}
		t.Run(c.name, func(t *testing.T) { runFault(t, f, c) })
	}
}

// kill --all of many sandboxes kills each once, and no other.
func TestFaultsKillAllConcurrently(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "")
	const n = 40
	for range n {
		create(t, f.env)
	}
	f.proxy.Reset()
	r := run(t, f.env, false, "kill", "--all", "--yes")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := f.proxy.Count(http.MethodDelete, `^/kruise/api/sandboxes/`); got != n {
		t.Errorf("%d DELETEs for %d sandboxes", got, n)
	}
	if left := len(f.srv.Sandboxes()); left != 0 {
		t.Errorf("%d sandboxes left", left)
	}
}
