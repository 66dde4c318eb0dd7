package process

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	group := cmdutil.GroupInside
	return []cmdutil.Verb{
		{Names: runNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdRun(f, nil) }},
		{Names: execNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdExec(f, nil) }},
		{Names: psNames, Group: group, Build: NewCmdPs},
		{Names: terminalNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdTerminal(f, nil) }},
	}
}
