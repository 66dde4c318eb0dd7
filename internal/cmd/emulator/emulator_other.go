//go:build !unix

package emulator

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
)

// NewCmdEmulator builds `abx emulator` where it cannot run: its sandboxes
// are process groups, signals and real paths of a Unix machine.
func NewCmdEmulator(*cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   emulatorNames.Use(""),
		Short: "Run a local sandbox-manager (Linux and macOS only)",
	}
	for _, name := range []string{"start", "exec", "env"} {
		cmd.AddCommand(&cobra.Command{
			Use:                name,
			Short:              "Not available on this system",
			DisableFlagParsing: true,
			RunE: func(*cobra.Command, []string) error {
				return abxerr.New(abxerr.InvalidInput, "abx emulator runs on Linux and macOS only").
					WithHint("run it on a Linux or macOS machine (or in WSL), or point abx at a cluster")
			},
		})
	}
	return cmdutil.NoProvider(cmd)
}
