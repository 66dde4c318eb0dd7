package root

import (
	"slices"
	"testing"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// The names a run goes by to build one command are the names that command
// has: a renamed command or a new alias must be renamed in topCommands too.
func TestTopCommandsAreNamedAsBuilt(t *testing.T) {
	t.Parallel()
	io, _, _, _ := output.Test(false)
	f := cmdutil.New(io, func(string) string { return "" })
	var names []string
	for _, tc := range topCommands {
		c := tc.build(f)
		if got := append([]string{c.Name()}, c.Aliases...); !slices.Equal(got, tc.names) {
			t.Errorf("topCommands names %v, the command %v", tc.names, got)
		}
		names = append(names, tc.names[0])
	}
	for _, c := range NewCmdRoot(f).Commands() {
		if c.Name() != "completion" && !slices.Contains(names, c.Name()) {
			t.Errorf("%s is below the root but not in topCommands", c.Name())
		}
	}
}

// A run that builds only what its line needs finds the command the whole
// tree finds.
func TestTheLazyTreeFindsWhatTheWholeTreeFinds(t *testing.T) {
	t.Parallel()
	lines := [][]string{
		{"url", "sb-1", "8080"}, {"-o", "json", "list"}, {"ls"}, {"--provider", "x", "info", "a"},
		{"--jq", ".id", "create", "--template", "base"}, {"files", "ls", "a", "/"}, {"files", "watch", "a", "b"},
		{"run-code", "contexts", "list", "a"}, {"--debug", "exec", "a", "--", "ls"}, {"environment"},
		{"--version"}, {"-o"}, {"--no-color", "--", "list"}, {"version", "extra"}, {"template", "build"},
		{"lsit"}, {"help", "create"}, {"completion", "bash"},
	}
	for _, line := range lines {
		io, _, _, _ := output.Test(false)
		f := cmdutil.New(io, func(string) string { return "" })
		whole, _, errWhole := NewCmdRoot(f).Find(line)
		lazy := newTree(f)
		lazy.lazy(line)
		got, _, errLazy := lazy.root.Find(line)
		if (errWhole == nil) != (errLazy == nil) || whole.CommandPath() != got.CommandPath() {
			t.Errorf("%q: the whole tree finds %q (%v), the lazy one %q (%v)", line, whole.CommandPath(), errWhole, got.CommandPath(), errLazy)
		}
	}
}
