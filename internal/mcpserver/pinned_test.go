//go:build unix

package mcpserver_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/mcpserver"
)

func TestPinnedServerOffersNoLifecycleAndTakesNoSandboxID(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	id := create(t, serve(t, opts), "base")
	opts.Sandbox = id
	cs := serve(t, opts)

	names := toolNames(t, cs)
	for _, n := range []string{"sandbox_create", "sandbox_list", "sandbox_kill", "sandbox_pause", "sandbox_resume"} {
		if slices.Contains(names, n) {
			t.Errorf("a pinned server offers %s", n)
		}
	}
	kept := 0 // every tool but those of the sandboxes' lifecycle
	for _, tl := range mcpserver.Tools() {
		if !tl.Lifecycle {
			kept++
		}
	}
	if len(names) != kept {
		t.Errorf("tools %v, want %d", names, kept)
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		if strings.Contains(string(b), "sandbox_id") {
			t.Errorf("%s takes sandbox_id: %s", tl.Name, b)
		}
		if tl.Name == "files_list" && !strings.Contains(string(b), `"maximum":16,"minimum":1`) {
			t.Errorf("files_list's schema lost its depth's range: %s", b)
		}
	}

	var x execResult
	if res := call(t, cs, "exec", map[string]any{"command": "echo pinned"}, &x); res.IsError || x.Stdout != "pinned\n" {
		t.Fatalf("exec: %s", texts(res))
	}
	var info struct {
		SandboxID string `json:"sandboxID"`
	}
	if res := call(t, cs, "sandbox_info", nil, &info); res.IsError || info.SandboxID != id {
		t.Fatalf("info: %s", texts(res))
	}
	// sandbox_id is refused, even the pinned one: it is no argument.
	mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "true"}, nil), "sandbox_id")
	// A tool not offered is unknown: a protocol error, as the SDK answers it.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "sandbox_kill", Arguments: map[string]any{"sandbox_id": id}}); err == nil {
		t.Error("a pinned server ran sandbox_kill")
	}
}
