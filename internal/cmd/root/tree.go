package root

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/code"
	"github.com/abx-dev/abx/internal/cmd/emulator"
	"github.com/abx-dev/abx/internal/cmd/files"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmd/process"
	"github.com/abx-dev/abx/internal/cmd/providers"
	"github.com/abx-dev/abx/internal/cmd/sandbox"
	"github.com/abx-dev/abx/internal/cmdutil"
)

// verbs are the commands below the root but cobra's own (help, completion
// and __complete), in the order help lists them: each group's, as the
// group declares them next to their code, then the help topics, which are
// the root's own.
func verbs() []cmdutil.Verb {
	var all []cmdutil.Verb
	for _, group := range verbGroups {
		all = append(all, group()...)
	}
	return append(all, helpTopics()...)
}

// verbGroups are the command groups, each declaring its verbs.
var verbGroups = []func() []cmdutil.Verb{sandbox.Verbs, process.Verbs, files.Verbs, code.Verbs,
	emulator.Verbs, providers.Verbs, meta.Verbs}

// tree is the command tree as far as it is built.
type tree struct {
	f     *cmdutil.Factory
	root  *cobra.Command
	verbs []cmdutil.Verb
	built map[string]bool // by name
	whole bool
	// runsRoot is true when the line runs the root itself: its help or
	// --version.
	runsRoot bool
}

// add builds a verb, once.
func (t *tree) add(v cmdutil.Verb) {
	if t.built[v.Names[0]] {
		return
	}
	t.built[v.Names[0]] = true
	c := v.Build(t.f)
	c.GroupID = v.Group
	markRunErrors(c)
	wireOutputFlags(c, t.f.Printer)
	t.root.AddCommand(c)
}

// complete builds the rest of the tree, with what only the whole tree
// has: the completion command.
func (t *tree) complete() {
	if t.whole {
		return
	}
	t.whole = true
	for _, v := range t.verbs {
		t.add(v)
	}
	t.root.CompletionOptions.DisableDefaultCmd = false
	addCompletion(t.root, t.f)
	if c := findCommand(t.root, "completion"); c != nil {
		markRunErrors(c)
	}
}

// named tells which verb a command line runs (nil: the root itself), found
// as cobra finds it, among stand-ins that carry only the names and the
// root's flags, which tell a flag's value from a command. ok is false when
// cobra would find none (an unknown command, or one of cobra's own: help,
// completion, __complete).
func (t *tree) named(args []string) (v *cmdutil.Verb, ok bool) {
	probe := &cobra.Command{Use: t.root.Name()}
	probe.PersistentFlags().AddFlagSet(t.root.PersistentFlags())
	for _, v := range t.verbs {
		probe.AddCommand(&cobra.Command{Use: v.Names[0], Aliases: v.Names[1:], Run: func(*cobra.Command, []string) {}})
	}
	cmd, _, err := probe.Find(args)
	switch {
	case err != nil:
		return nil, false
	case cmd == probe:
		return nil, true
	}
	i := slices.IndexFunc(t.verbs, func(v cmdutil.Verb) bool { return v.Names[0] == cmd.Name() })
	if i < 0 {
		return nil, false
	}
	return &t.verbs[i], true
}

// lazy builds, below the root, only the command the line runs; help of
// the root, which lists every command, builds the rest first.
func (t *tree) lazy(args []string) {
	v, ok := t.named(args)
	if !ok {
		t.complete()
		return
	}
	if v != nil {
		t.add(*v)
	}
	t.runsRoot = v == nil
	t.root.CompletionOptions.DisableDefaultCmd = true
	help := t.root.HelpFunc()
	t.root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == t.root && !t.whole {
			t.complete()
			t.root.InitDefaultHelpCmd()
		}
		help(c, args)
	})
}
