//go:build linux

package root

import (
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/mcpserver"
	"github.com/abx-dev/abx/internal/provider"
)

// abx run and the MCP tool sandbox_run are one operation (sandbox.run):
// each refuses what it refuses in the same words, a bound that passes is
// said the same way, and a job that fails after its sandbox was made
// leaves no sandbox behind, from either door. Only the names of the inputs
// are each door's own (--timeout, timeout_seconds).
func TestRunAndSandboxRunAreOneJob(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	cs := mcpOn(t, e)
	for _, tc := range []struct {
		name string
		argv []string
		args map[string]any
		code string
	}{
		{"no template", []string{"run", "--template", " ", "--", "true"},
			map[string]any{"template": " ", "command": "true"}, "E1002"},
		{"an empty command", []string{"run", "--template", "base", "--", " "},
			map[string]any{"template": "base", "command": " "}, "E1002"},
		// The bound counts from the job's start, the sandbox's making
		// included: 10 s, so that a busy machine has started the command
		// by then, which the bound then kills.
		{"a bound that passes", []string{"run", "--template", "base", "--timeout", "10s", "--", "sleep 60"},
			map[string]any{"template": "base", "command": "sleep 60", "timeout_seconds": 10}, "E6001"},
		{"a put that fails", []string{"run", "--template", "base", "--put", "run_doors_test.go:/etc/abx-doors", "--", "true"},
			map[string]any{"template": "base", "command": "true", "files": map[string]string{"/etc/abx-doors": "x"}}, "E5007"},
	} {
		// The two doors side by side: the bound's case waits for it in each.
		type called struct {
			res *mcp.CallToolResult
			err error
		}
		tool := make(chan called, 1)
		go func() {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "sandbox_run", Arguments: tc.args})
			tool <- called{res, err}
		}()
		r := run(t, e, false, tc.argv...)
		got := <-tool
		cli := regexp.MustCompile(`(?m)^error\[(E\d+)\]: (.*?)(?:; (.*))?$`).FindStringSubmatch(r.stderr)
		if len(cli) < 2 || cli[1] != tc.code {
			t.Errorf("%s: abx run said %q, want %s", tc.name, r.stderr, tc.code)
			continue
		}
		res, err := got.res, got.err
		if err != nil {
			t.Fatal(err)
		}
		agent := regexp.MustCompile(`^(E\d+): (.*?)(?: \((.*)\))?$`).FindStringSubmatch(toolText(res))
		if !res.IsError || agent == nil || agent[1] != tc.code {
			t.Errorf("%s: sandbox_run said %q, want %s", tc.name, toolText(res), tc.code)
			continue
		}
		if said := strings.ReplaceAll(cli[2], "--timeout", "timeout_seconds"); said != agent[2] || cli[3] != agent[3] {
			t.Errorf("%s: two wordings:\nabx run:     %s (%s)\nsandbox_run: %s (%s)", tc.name, cli[2], cli[3], agent[2], agent[3])
		}
		if tc.code == "E6001" && !strings.HasSuffix(agent[2], "(timeout_seconds): the command was killed") {
			t.Errorf("%s: %q, want the command killed at the bound", tc.name, agent[2])
		}
	}
	f, _ := factorytest.NewFactory(false, e, "")
	if left, err := f.Sandboxes.List(t.Context(), provider.ListOptions{}); err != nil || len(left) != 0 {
		t.Errorf("left running: %+v, %v", left, err)
	}
}

// mcpOn connects to an MCP server over the sandboxes of env, in memory.
func mcpOn(t *testing.T, env map[string]string) *mcp.ClientSession {
	t.Helper()
	f, _ := factorytest.NewFactory(false, env, "")
	st, ct := mcp.NewInMemoryTransports()
	srv := mcpserver.New(mcpserver.Options{Ready: f.Sandboxes.Ready, Sandboxes: f.Sandboxes.Keeping(mcpserver.ClientTTL)})
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolText is a tool result's text.
func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
