package emulator

import "github.com/abx-dev/abx/internal/cmdutil"

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	return []cmdutil.Verb{{Names: emulatorNames, Group: cmdutil.GroupLocal, Build: NewCmdEmulator}}
}

// emulatorNames are the names of `abx emulator`, declared once: its command takes
// them, and its group's Verbs lists them.
var emulatorNames = cmdutil.Names{"emulator"}
