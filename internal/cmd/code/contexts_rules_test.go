//go:build unix

package code

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
)

// TestContextIDHint: a refused context ID says where the good ones are:
// the sandbox's contexts, which the root names with its command.
func TestContextIDHint(t *testing.T) {
	t.Parallel()
	var h heard
	_, err := execRun(h.server(t), nil, func(f *cmdutil.Factory) *cobra.Command { return NewCmdContextsDelete(f, nil) }, "sb-1", "a/b")
	if e := abxerr.From(err); e.Code != abxerr.InvalidInput || e.Next != abxerr.StepContexts || e.Subject != "sb-1" {
		t.Errorf("code %s, next %q about %q", e.Code, e.Next, e.Subject)
	}
}

// TestContextsRefusals: the contexts' rules are the operations', in the
// command line's words, and refuse before anything is sent.
func TestContextsRefusals(t *testing.T) {
	t.Parallel()
	type build = func(*cmdutil.Factory) *cobra.Command
	create := func(f *cmdutil.Factory) *cobra.Command { return NewCmdContextsCreate(f, nil) }
	restart := func(f *cmdutil.Factory) *cobra.Command { return NewCmdContextsRestart(f, nil) }
	del := func(f *cmdutil.Factory) *cobra.Command { return NewCmdContextsDelete(f, nil) }
	for _, tc := range []struct {
		name  string
		build build
		argv  []string
		want  string
	}{
		{"bad language", create, []string{"sb-1", "-l", "x"}, `invalid --language "x"`},
		{"context with a slash", restart, []string{"sb-1", "../../sandboxes"}, `invalid context ID "../../sandboxes"`},
		{"dot context", del, []string{"sb-1", ".."}, `invalid context ID ".."`},
		{"context with a backslash", restart, []string{"sb-1", "a\\b"}, `invalid context ID "a\\b"`},
		{"blank context", del, []string{"sb-1", " "}, "the context is required"},
		{"empty context", restart, []string{"sb-1", ""}, "the context is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var h heard
			_, err := execRun(h.server(t), nil, tc.build, tc.argv...)
			if e := abxerr.From(err); e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, tc.want) {
				t.Errorf("error %v, want E1002 saying %q", err, tc.want)
			}
			if h.n.Load() != 0 {
				t.Errorf("the interpreter was asked %d times", h.n.Load())
			}
		})
	}
}
