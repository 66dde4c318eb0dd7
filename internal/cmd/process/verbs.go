package process

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	group := cmdutil.GroupInside
	return []cmdutil.Verb{
		{Names: []string{"exec"}, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdExec(f, nil) }},
		{Names: []string{"ps"}, Group: group, Build: NewCmdPs},
		{Names: []string{"terminal"}, Group: group, Build: NewCmdTerminal},
	}
}
