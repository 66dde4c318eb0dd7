package remoteproc

import (
	"reflect"
	"testing"

	"github.com/abx-dev/abx/internal/envd"
)

func TestCommandRunsTheLineUnderTheWrapper(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		spec       Spec
		background bool
		line       string
	}{
		{"shell line", Spec{Argv: []string{"echo hi | wc -c"}}, false, "exec </dev/null; echo hi | wc -c"},
		{"argv", Spec{Argv: []string{"printf", "%s", "a b"}}, false, "exec </dev/null; printf %s 'a b'"},
		{"interactive", Spec{Argv: []string{"cat"}, Interactive: true}, false, "cat"},
		{"background", Spec{Argv: []string{"sleep 300"}}, true, "exec </dev/null; exec >/dev/null 2>&1; sleep 300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := command(tc.spec, tc.background)
			want := []string{"-c", wrapper, wrapperName, tc.line}
			if c.Cmd != "/bin/bash" || !reflect.DeepEqual(c.Args, want) || c.Stdin != tc.spec.Interactive {
				t.Errorf("got %s %q (stdin %v), want /bin/bash %q", c.Cmd, c.Args, c.Stdin, want)
			}
			// ps shows what was asked for, as before the wrapper.
			shown := Shown(envd.Process{Cmd: c.Cmd, Args: c.Args})
			if wantShown := []string{"-l", "-c", tc.line}; shown.Cmd != "/bin/bash" || !reflect.DeepEqual(shown.Args, wantShown) {
				t.Errorf("shown as %s %q, want /bin/bash %q", shown.Cmd, shown.Args, wantShown)
			}
		})
	}
}

// Processes abx did not start, or started before the wrapper, are shown
// as envd lists them.
func TestShownLeavesOtherProcessesAlone(t *testing.T) {
	t.Parallel()
	for _, p := range []envd.Process{
		{Cmd: "/bin/bash", Args: []string{"-l", "-c", "sleep 300"}},
		{Cmd: "/bin/bash", Args: []string{"-c", "echo $0 $1", "x", "y"}},
		{Cmd: "python3", Args: []string{"-c", "x", wrapperName, "y"}},
		{Cmd: "/bin/bash", Args: []string{}},
	} {
		if got := Shown(p); !reflect.DeepEqual(got, p) {
			t.Errorf("%q became %q", append([]string{p.Cmd}, p.Args...), append([]string{got.Cmd}, got.Args...))
		}
	}
}
