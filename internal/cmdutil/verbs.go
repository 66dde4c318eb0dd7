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
	Names []string
	Group string
	Build func(*Factory) *cobra.Command
}
