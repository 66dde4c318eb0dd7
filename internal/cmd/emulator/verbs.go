package emulator

import "github.com/abx-dev/abx/internal/cmdutil"

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	return []cmdutil.Verb{{Names: []string{"emulator"}, Group: cmdutil.GroupLocal, Build: NewCmdEmulator}}
}
