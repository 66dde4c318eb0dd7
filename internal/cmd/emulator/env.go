//go:build unix

package emulator

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator/record"
	"github.com/abx-dev/abx/internal/output"
)

// EnvOptions are the inputs of `abx emulator env`.
type EnvOptions struct {
	Printer  *output.Printer
	StateDir string
}

// NewCmdEnv builds `abx emulator env`.
func NewCmdEnv(f *cmdutil.Factory, runF func(context.Context, *EnvOptions) error) *cobra.Command {
	opts := &EnvOptions{Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the environment that points abx at the running emulator",
		Long: `Print the export lines that point abx at the emulator serving the state dir, for
eval in a shell; -o json prints them as one object.`,
		Example: `  eval "$(abx emulator env)"
  abx emulator env -o json | jq -r .ABX_ALICLOUD_CONTAINER_BASE_URL`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.StateDir, err = defaultStateDir(opts.StateDir, f.Getenv); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runEnv)
		},
	}
	cmd.Flags().StringVar(&opts.StateDir, "state-dir", "", "state dir of the emulator (default: the one 'abx emulator start' uses)")
	return cmd
}

func runEnv(_ context.Context, opts *EnvOptions) error {
	rt, err := record.Read(opts.StateDir)
	if errors.Is(err, record.ErrNotRunning) {
		return abxerr.New(abxerr.NotFound, "no emulator is running with state dir %s", opts.StateDir).
			WithHint("start one with 'abx emulator start' (and the same --state-dir)")
	}
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot read the emulator's state: %v", err)
	}
	if rt.NotIsolated != "" {
		opts.Printer.Warn("note: this emulator's sandboxes are not isolated (%s); see docs/emulator.md", rt.NotIsolated)
	}
	return opts.Printer.Env(rt.Env())
}
