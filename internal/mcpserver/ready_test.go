package mcpserver_test

import (
	"testing"
)

// Ready is asked at the start of every call: what it refuses is the
// tool's error, in abx's code and words, and nothing else runs (this
// server has no operations at all).
func TestWhatReadyRefusesIsEveryToolsError(t *testing.T) {
	t.Parallel()
	cs := serve(t, unconfigured())
	for tool, args := range map[string]map[string]any{
		"sandbox_list":   nil,
		"sandbox_create": {"template": "base"},
		"sandbox_run":    {"template": "base", "command": "true"},
		"exec":           {"sandbox_id": "sb-1", "command": "true"},
		"files_read":     {"sandbox_id": "sb-1", "path": "a"},
		"run_code":       {"sandbox_id": "sb-1", "code": "1"},
	} {
		mustFail(t, call(t, cs, tool, args, nil), "E1004: no provider is set up")
	}
}
