package root

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/cmd/code"
	"github.com/abx-dev/abx/internal/cmd/emulator"
	"github.com/abx-dev/abx/internal/cmd/files"
	"github.com/abx-dev/abx/internal/cmd/mcp"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmd/process"
	"github.com/abx-dev/abx/internal/cmd/profiles"
	"github.com/abx-dev/abx/internal/cmd/providers"
	"github.com/abx-dev/abx/internal/cmd/sandbox"
	"github.com/abx-dev/abx/internal/cmdutil"
)

// verbs are the commands below the root but cobra's own (help, completion
// and __complete): each group's, as the group declares them next to their
// code, the commands the catalogue declares whole, then the help topics,
// which are the root's own.
func verbs() []cmdutil.Verb {
	var all []cmdutil.Verb
	for _, group := range verbGroups {
		all = append(all, group()...)
	}
	all = append(all, cmdutil.DeclaredVerbs()...)
	return append(all, helpTopics()...)
}

// verbGroups are the command groups, each declaring its verbs.
var verbGroups = []func() []cmdutil.Verb{sandbox.Verbs, process.Verbs, files.Verbs, code.Verbs, mcp.Verbs,
	emulator.Verbs, profiles.Verbs, providers.Verbs, meta.Verbs}

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

// named tells which verb a command line runs (nil: the root itself),
// found as cobra's Find finds it: the first word that is neither a flag
// nor a flag's value, the root's flags telling the two apart (its
// stripFlags), is a verb's name or alias. ok is false when cobra would
// find none (an unknown command, or one of cobra's own: help, completion,
// __complete). It reads the words rather than building stand-in commands
// for cobra to search: that was a tenth of what 'abx --version' ran.
func (t *tree) named(args []string) (v *cmdutil.Verb, ok bool) {
	word, found := commandWord(args, t.root.PersistentFlags())
	if !found {
		return nil, true
	}
	i := slices.IndexFunc(t.verbs, func(v cmdutil.Verb) bool { return slices.Contains(v.Names, word) })
	if i < 0 {
		return nil, false
	}
	return &t.verbs[i], true
}

// commandWord is cobra's stripFlags (v1.10) up to the first word it keeps:
// a flag not known to take no value (--name, or -n alone) takes the next
// word as its value, and "--" ends the search.
func commandWord(args []string, flags *pflag.FlagSet) (string, bool) {
	noValue := func(fl *pflag.Flag) bool { return fl != nil && fl.NoOptDefVal != "" }
	for len(args) > 0 {
		s := args[0]
		args = args[1:]
		switch {
		case s == "--":
			return "", false
		case strings.HasPrefix(s, "--") && !strings.Contains(s, "=") && !noValue(flags.Lookup(s[2:])):
			fallthrough
		case strings.HasPrefix(s, "-") && !strings.Contains(s, "=") && len(s) == 2 && !noValue(flags.ShorthandLookup(s[1:])):
			if len(args) <= 1 {
				return "", false
			}
			args = args[1:]
		case s != "" && !strings.HasPrefix(s, "-"):
			return s, true
		}
	}
	return "", false
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
