//go:build unix

package mcpserver_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
	"github.com/abx-dev/abx/internal/emulator/manager"
)

// A guarded sandbox whose traffic tokens live a second: the server's
// tools keep working past several expiries, in the server that created
// the sandbox (its create answered a token) and in another that never saw
// it (it asks the manager for one).
func TestToolsOutliveTrafficTokens(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t, func(o *manager.Options) { o.TrafficTokenValidity = time.Second })
	url := env["ABX_ALICLOUD_CONTAINER_BASE_URL"]
	servers := []struct {
		name string
		cs   *mcp.ClientSession
	}{{"creator", serve(t, over(t, url, emutest.Key))}, {"other", serve(t, over(t, url, emutest.Key))}}

	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	res := call(t, servers[0].cs, "sandbox_create", map[string]any{"template": "code-interpreter",
		"metadata": map[string]string{e2bapi.TrafficAuthKey: "true"}}, &sb)
	if res.IsError || sb.SandboxID == "" {
		t.Fatalf("create: %s", texts(res))
	}
	id := sb.SandboxID
	for round := range 3 {
		for _, s := range servers {
			var x execResult
			res := call(t, s.cs, "exec", map[string]any{"sandbox_id": id, "command": fmt.Sprintf("echo %s %d", s.name, round)}, &x)
			if res.IsError || x.Stdout != fmt.Sprintf("%s %d\n", s.name, round) {
				t.Fatalf("round %d, %s: exec: %s", round, s.name, texts(res))
			}
			res = call(t, s.cs, "files_write", map[string]any{"sandbox_id": id, "path": s.name + ".txt", "content": "r"}, nil)
			if res.IsError {
				t.Fatalf("round %d, %s: files_write: %s", round, s.name, texts(res))
			}
			res = call(t, s.cs, "run_code", map[string]any{"sandbox_id": id, "code": fmt.Sprintf("print(%d)", round)}, nil)
			if res.IsError {
				t.Fatalf("round %d, %s: run_code: %s", round, s.name, texts(res))
			}
		}
		// Past the tokens both servers hold: the subject of the test.
		time.Sleep(1200 * time.Millisecond)
	}
}

// A long-lived server whose sandbox's token expires while the manager
// refuses to renew it: the tool call fails with one line that says so,
// in the manager's words, and nothing reaches the sandbox, where the
// gateway would only have answered 403.
func TestAnExpiredTokenThatCannotBeRenewedIsOneLine(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t, func(o *manager.Options) { o.TrafficTokenValidity = 2 * time.Second })
	p := faultproxy.New(env["ABX_ALICLOUD_CONTAINER_BASE_URL"])
	t.Cleanup(p.Close)
	cs := serve(t, over(t, p.URL+"/kruise/api", emutest.Key))
	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	res := call(t, cs, "sandbox_create", map[string]any{"template": "base",
		"metadata": map[string]string{e2bapi.TrafficAuthKey: "true"}}, &sb)
	if res.IsError {
		t.Fatalf("create: %s", texts(res))
	}
	if res := call(t, cs, "exec", map[string]any{"sandbox_id": sb.SandboxID, "command": "true"}, nil); res.IsError {
		t.Fatalf("exec with the create's token: %s", texts(res))
	}
	time.Sleep(2500 * time.Millisecond) // past the create's token: the subject of the test
	p.Reset()
	p.Add(faultproxy.Rule{Method: "POST", Path: `/traffic-access-token$`,
		Fault: faultproxy.Status(503, `{"code":503,"message":"Traffic access token issuer is unavailable"}`, "Content-Type", "application/json")})
	res = call(t, cs, "exec", map[string]any{"sandbox_id": sb.SandboxID, "command": "true"}, nil)
	got := texts(res)
	if !res.IsError || !strings.Contains(got, "the traffic token of sandbox "+sb.SandboxID+" expired at ") ||
		!strings.Contains(got, "could not be renewed, so nothing was sent") || !strings.Contains(got, "issuer is unavailable") ||
		strings.Contains(got, "403") || strings.Count(strings.TrimSpace(got), "\n") > 1 {
		t.Errorf("exec past expiry: %q", got)
	}
	for _, s := range p.Seen() {
		if strings.Contains(s, "/kruise/"+sb.SandboxID+"/") {
			t.Errorf("the sandbox was sent %s", s)
		}
	}
}
