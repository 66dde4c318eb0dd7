package cmdutil

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/sandboxes"
)

// Unsupported is a command of the abx family whose operation abx declares
// (sandboxes.Op) but no registered provider has the capability of yet. It
// is declared like every other command, so the root's check of its
// operation refuses it with E8004 before any request; the RunE is reached
// only by a provider that declares the capability, which abx has not
// wired, and is refused the same way (Service.Unoffered).
func Unsupported(f *Factory, use, short, op string) *cobra.Command {
	c := string(sandboxes.Op(op).Capability)
	cmd := &cobra.Command{
		Use:   use,
		Short: short + " (not supported by every provider)",
		Long: short + `.

It needs the capability ` + c + `: a provider without it refuses the command with
E8004 (exit 5) before any request, and no provider abx knows has it yet. 'abx capabilities'
shows what the selected provider supports.`,
		Example: "  abx capabilities -o json | jq '.capabilities[] | select(.name == \"" + c + "\")'",
		Args:    cobra.ArbitraryArgs,
		RunE: func(*cobra.Command, []string) error {
			return f.Sandboxes.Unoffered(sandboxes.Op(op))
		},
	}
	cmd.Flags().SetInterspersed(true)
	cmd.FParseErrWhitelist.UnknownFlags = true
	return Does(cmd, op)
}
