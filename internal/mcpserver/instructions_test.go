package mcpserver

import (
	"slices"
	"strings"
	"testing"
)

// The instructions name only the tools the server offers: a server pinned
// to a sandbox has no sandbox_create, sandbox_kill or sandbox_run to
// point the agent to.
func TestInstructionsNameOnlyTheOfferedTools(t *testing.T) {
	t.Parallel()
	all := Instructions(Options{})
	for _, tool := range []string{"sandbox_create", "exec", "run_code", "files_read", "files_write", "files_list", "sandbox_kill", "sandbox_run"} {
		if !strings.Contains(all, tool) {
			t.Errorf("the instructions of every tool do not name %s: %q", tool, all)
		}
	}
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"pinned", Options{Sandbox: "sb-1"}, []string{"sb-1", "exec", "run_code", "files_read"}},
		{"pinned, some tools", Options{Sandbox: "sb-1", Tools: []string{"exec", "files_read"}}, []string{"exec", "files_read"}},
		{"read-only", Options{ReadOnly: true}, []string{"files_read", "files_list"}},
	} {
		got := Instructions(tc.opts)
		t.Logf("%s: %s", tc.name, got)
		offered, err := Offered(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range Tools() {
			named := strings.Contains(got, tool.Name+" ") || strings.Contains(got, tool.Name+".") || strings.Contains(got, tool.Name+",")
			if named && !slices.Contains(offered, tool.Name) {
				t.Errorf("%s: the instructions name %s, which is not offered: %q", tc.name, tool.Name, got)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the instructions do not say %q: %q", tc.name, w, got)
			}
		}
	}
}
