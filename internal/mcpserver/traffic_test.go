//go:build unix

package mcpserver_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/emulator/emutest"
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
