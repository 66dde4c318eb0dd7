package code

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	return []cmdutil.Verb{{Names: runCodeNames, Group: cmdutil.GroupInside,
		Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdRunCode(f, nil) }}}
}
