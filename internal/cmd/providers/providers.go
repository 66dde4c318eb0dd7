// Package providers holds `abx provider`: the sandbox providers abx knows
// and what each of them can do.
package providers

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// providerNames are the names of `abx provider`, declared once: its command takes
// them, and its group's Verbs lists them.
var providerNames = cmdutil.Names{"provider"}

// NewCmdProvider builds the `abx provider` group.
func NewCmdProvider(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   providerNames.Use(""),
		Short: "List the sandbox providers abx knows and what each can do",
		Long: `List the sandbox providers built into abx, and show one: its settings (flags and
environment variables) and the capabilities of the abx family it supports or not.
'abx capabilities' is the short form for the selected provider. The providers come with
the binary: 'install' confirms one by the name the provider catalog gives it, and
there is nothing to download or remove.`,
		Args: cmdutil.ExactArgs(),
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdInfo(f, nil), NewCmdInstall(f, nil), NewCmdUninstall(f, nil), NewCmdEngine(f))
	return cmd
}

// yesNo is how tables show a flag.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	return []cmdutil.Verb{{Names: providerNames, Group: cmdutil.GroupSettings, Build: NewCmdProvider}}
}
