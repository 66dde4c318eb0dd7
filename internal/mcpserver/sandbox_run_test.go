//go:build unix

package mcpserver_test

import (
	"strings"
	"testing"
)

// sandbox_run says once which path it could not collect and why.
func TestRunSaysAMissingPathOnce(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	cs := serve(t, opts)
	var r struct {
		ExitCode int               `json:"exitCode"`
		Files    map[string]string `json:"files"`
		Missing  []string          `json:"missing"`
	}
	res := call(t, cs, "sandbox_run", map[string]any{"template": "base", "command": "echo hi > out.txt",
		"collect": []string{"out.txt", "nothere"}}, &r)
	if res.IsError || r.ExitCode != 0 || r.Files["out.txt"] != "hi\n" || len(r.Missing) != 1 {
		t.Fatalf("sandbox_run: %s %+v", texts(res), r)
	}
	if m := r.Missing[0]; !strings.HasPrefix(m, "nothere: ") || strings.HasPrefix(m, "nothere: nothere:") || !strings.Contains(m, "does not exist") {
		t.Errorf("missing entry %q names the path more than once", m)
	}
}

// An empty or blank template is refused by sandbox_create and sandbox_run
// in the words abx create and abx run use (the catalogue's template input), and
// no sandbox is made.
func TestCreateAndRunRefuseAnEmptyTemplateInOneWording(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	cs := serve(t, opts)
	const want = "E1002: the template is required (name the template to start from, e.g. base or code-interpreter)"
	for _, template := range []string{"", " \t"} {
		mustFail(t, call(t, cs, "sandbox_create", map[string]any{"template": template}, nil), want)
		mustFail(t, call(t, cs, "sandbox_run", map[string]any{"template": template, "command": "true"}, nil), want)
	}
	var list struct {
		Sandboxes []any `json:"sandboxes"`
	}
	if res := call(t, cs, "sandbox_list", map[string]any{}, &list); res.IsError || len(list.Sandboxes) != 0 {
		t.Errorf("sandbox_list after the refusals: %s", texts(res))
	}
}
