package cmdutil

import "github.com/spf13/cobra"

// The sections of 'abx --help'; each verb says which it is listed in.
const (
	GroupSandboxes = "sandboxes"
	GroupInside    = "inside"
	GroupLocal     = "local"
	GroupSettings  = "settings"
)

// Verb is a command right below the root as its group declares it, next to
// its code: the root builds the tree from the groups' lists and keeps none
// of its own, so adding a verb touches its group only. Its names (name and
// aliases) are known before it is built, so that a run builds only the
// command its line names.
type Verb struct {
	Names Names
	Group string
	Build func(*Factory) *cobra.Command
}

// Names are a verb's name, then its aliases: declared once, beside its
// NewCmdX, whose command takes them (Use, Aliases), and listed by its
// group's Verbs.
type Names []string

// Use is the command's Use line: its name, then what follows it.
func (n Names) Use(rest string) string {
	if rest == "" {
		return n[0]
	}
	return n[0] + " " + rest
}

// Aliases are the names after the first.
func (n Names) Aliases() []string { return n[1:] }
