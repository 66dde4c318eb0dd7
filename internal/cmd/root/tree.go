package root

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/code"
	"github.com/abx-dev/abx/internal/cmd/emulator"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmd/process"
	"github.com/abx-dev/abx/internal/cmd/providers"
	"github.com/abx-dev/abx/internal/cmd/sandbox"
	"github.com/abx-dev/abx/internal/cmdutil"
)

// A topCommand is a command right below the root. Its names (its name and
// aliases) are known before it is built, so that a run can build only the
// command its line names: building the whole tree is most of what a cheap
// command such as url or version does.
type topCommand struct {
	names []string
	group string // "" for a help topic
	build func(*cmdutil.Factory) *cobra.Command
}

// topCommands are the commands below the root but cobra's own (help,
// completion and __complete), in the order help lists each group.
var topCommands = []topCommand{
	{[]string{"create"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdCreate(f, nil) }},
	{[]string{"connect"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdConnect(f, nil) }},
	{[]string{"list", "ls"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdList(f, nil) }},
	{[]string{"info"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdInfo(f, nil) }},
	{[]string{"kill"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdKill(f, nil) }},
	{[]string{"timeout"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdTimeout(f, nil) }},
	{[]string{"pause"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdPause(f, nil) }},
	{[]string{"resume"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdResume(f, nil) }},
	{[]string{"url"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdURL(f, nil) }},
	{[]string{"port-forward"}, "sandboxes", func(f *cmdutil.Factory) *cobra.Command { return sandbox.NewCmdPortForward(f, nil) }},
	{[]string{"template"}, "sandboxes", newCmdTemplate},
	{[]string{"exec"}, "inside", func(f *cmdutil.Factory) *cobra.Command { return process.NewCmdExec(f, nil) }},
	{[]string{"ps"}, "inside", process.NewCmdPs},
	{[]string{"files"}, "inside", newCmdFiles},
	{[]string{"run-code"}, "inside", func(f *cmdutil.Factory) *cobra.Command { return code.NewCmdRunCode(f, nil) }},
	{[]string{"terminal"}, "inside", newCmdTerminal},
	{[]string{"emulator"}, "local", emulator.NewCmdEmulator},
	{[]string{"provider"}, "settings", providers.NewCmdProvider},
	{[]string{"capabilities"}, "settings", func(f *cmdutil.Factory) *cobra.Command { return meta.NewCmdCapabilities(f, nil) }},
	{[]string{"config"}, "settings", func(f *cmdutil.Factory) *cobra.Command { return meta.NewCmdConfig(f, nil) }},
	{[]string{"version"}, "settings", func(f *cmdutil.Factory) *cobra.Command { return meta.NewCmdVersion(f, nil) }},
	{[]string{"environment"}, "", func(f *cmdutil.Factory) *cobra.Command { return newHelpTopic(f, "environment") }},
	{[]string{"exit-codes"}, "", func(f *cmdutil.Factory) *cobra.Command { return newHelpTopic(f, "exit-codes") }},
	{[]string{"formatting"}, "", func(f *cmdutil.Factory) *cobra.Command { return newHelpTopic(f, "formatting") }},
}

// tree is the command tree as far as it is built.
type tree struct {
	f     *cmdutil.Factory
	root  *cobra.Command
	built []bool // by index in topCommands
	whole bool
}

// add builds the i-th top command, once.
func (t *tree) add(i int) {
	if t.built[i] {
		return
	}
	t.built[i] = true
	c := topCommands[i].build(t.f)
	c.GroupID = topCommands[i].group
	markRunErrors(c)
	t.root.AddCommand(c)
}

// complete builds the rest of the tree, with what only the whole tree
// has: the completion command and what completes each argument and flag.
func (t *tree) complete() {
	if t.whole {
		return
	}
	t.whole = true
	for i := range topCommands {
		t.add(i)
	}
	t.root.CompletionOptions.DisableDefaultCmd = false
	addCompletions(t.root, t.f)
	if c := findCommand(t.root, "completion"); c != nil {
		markRunErrors(c)
	}
}

// named tells which top command a command line runs (-1: the root
// itself), found as cobra finds it, among stand-ins that carry only the
// names and the root's flags, which tell a flag's value from a command.
// ok is false when cobra would find none (an unknown command, or one of
// cobra's own: help, completion, __complete).
func (t *tree) named(args []string) (i int, ok bool) {
	probe := &cobra.Command{Use: t.root.Name()}
	probe.PersistentFlags().AddFlagSet(t.root.PersistentFlags())
	for _, tc := range topCommands {
		probe.AddCommand(&cobra.Command{Use: tc.names[0], Aliases: tc.names[1:], Run: func(*cobra.Command, []string) {}})
	}
	cmd, _, err := probe.Find(args)
	switch {
	case err != nil:
		return 0, false
	case cmd == probe:
		return -1, true
	}
	i = slices.IndexFunc(topCommands, func(tc topCommand) bool { return tc.names[0] == cmd.Name() })
	return i, i >= 0
}

// lazy builds, below the root, only the command the line runs; help of
// the root, which lists every command, builds the rest first.
func (t *tree) lazy(args []string) {
	i, ok := t.named(args)
	if !ok {
		t.complete()
		return
	}
	if i >= 0 {
		t.add(i)
	}
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
