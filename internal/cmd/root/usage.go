package root

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// The usage text is cobra's, with its flags in three parts: the command's
// own, abx's global ones, and the provider's settings, shown only on the
// commands that use a provider (a provider's --domain means nothing to
// 'abx version').
//
// It is written by a function, the one cobra uses when no usage template
// is set, rather than by a template: any call that sets a cobra template
// links text/template's executor, whose reflect.Value.MethodByName makes
// the linker keep every exported method of every type abx links (19 MB
// against 15 MB, and some 60 more pages touched at every start).
func setUsage(root *cobra.Command) {
	root.SetUsageFunc(usage)
}

// usage is cobra's default usage text (its defaultUsageFunc, the same as
// its default template) with abx's three parts of flags.
func usage(c *cobra.Command) error {
	// What cobra does before its own: the persistent flags merged, which
	// UseLine's [flags] depends on.
	_ = c.LocalFlags()
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:")
	if c.Runnable() {
		fmt.Fprintf(w, "\n  %s", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n  %s [command]", c.CommandPath())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(w, "\n\nAliases:\n")
		fmt.Fprintf(w, "  %s", c.NameAndAliases())
	}
	if c.HasExample() {
		fmt.Fprintf(w, "\n\nExamples:\n")
		fmt.Fprintf(w, "%s", c.Example)
	}
	if c.HasAvailableSubCommands() {
		listed := func(sub *cobra.Command) bool { return sub.IsAvailableCommand() || sub.Name() == "help" }
		cmds := c.Commands()
		if len(c.Groups()) == 0 {
			fmt.Fprintf(w, "\n\nAvailable Commands:")
			for _, sub := range cmds {
				if listed(sub) {
					fmt.Fprintf(w, "\n  %s %s", rpad(sub.Name(), sub.NamePadding()), sub.Short)
				}
			}
		} else {
			for _, group := range c.Groups() {
				fmt.Fprintf(w, "\n\n%s", group.Title)
				for _, sub := range cmds {
					if sub.GroupID == group.ID && listed(sub) {
						fmt.Fprintf(w, "\n  %s %s", rpad(sub.Name(), sub.NamePadding()), sub.Short)
					}
				}
			}
			if !c.AllChildCommandsHaveGroup() {
				fmt.Fprintf(w, "\n\nAdditional Commands:")
				for _, sub := range cmds {
					if sub.GroupID == "" && listed(sub) {
						fmt.Fprintf(w, "\n  %s %s", rpad(sub.Name(), sub.NamePadding()), sub.Short)
					}
				}
			}
		}
	}
	if s := flagUsages(c.LocalFlags(), false); s != "" {
		fmt.Fprintf(w, "\n\nFlags:\n%s", s)
	}
	if s := flagUsages(c.InheritedFlags(), false); s != "" {
		fmt.Fprintf(w, "\n\nGlobal Flags:\n%s", s)
	}
	if s := providerFlags(c); s != "" {
		fmt.Fprintf(w, "\n\n%s\n%s", cmdutil.SettingsListed(c), s)
	}
	if c.HasHelpSubCommands() {
		fmt.Fprintf(w, "\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(w, "\n  %s %s", rpad(sub.CommandPath(), sub.CommandPathPadding()), sub.Short)
			}
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	fmt.Fprintln(w)
	return nil
}

// rpad is cobra's: s padded with spaces to width.
func rpad(s string, width int) string { return fmt.Sprintf("%-*s", width, s) }

// flagUsages lists the visible flags of fs that are (or are not) a
// provider's settings.
func flagUsages(fs *pflag.FlagSet, providers bool) string {
	sub := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden && cmdutil.IsProviderFlag(fl) == providers {
			sub.AddFlag(fl)
		}
	})
	return strings.TrimRight(sub.FlagUsages(), " \n")
}

// providerFlags lists the providers' settings where they apply: on the
// commands that use a provider, and on those that take its settings.
func providerFlags(c *cobra.Command) string {
	if cmdutil.SettingsListed(c) == "" {
		return ""
	}
	all := pflag.NewFlagSet("", pflag.ContinueOnError)
	all.AddFlagSet(c.LocalFlags())
	all.AddFlagSet(c.InheritedFlags())
	return flagUsages(all, true)
}
