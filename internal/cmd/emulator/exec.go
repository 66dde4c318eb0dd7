//go:build unix

package emulator

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// ExecOptions are the inputs of `abx emulator exec`.
type ExecOptions struct {
	IO *output.Streams
	ServeOptions
	Argv []string
}

// NewCmdExec builds `abx emulator exec`.
func NewCmdExec(f *cmdutil.Factory, runF func(context.Context, *ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "exec [flags] -- CMD [ARG...]",
		Short: "Start the emulator, run a command against it, stop it, exit with the command's code",
		Long: `Start the emulator, run CMD with the environment pointing abx at it, stop the emulator
and every process its sandboxes started, and exit with CMD's exit status (128+n if a
signal ended it; 127 if CMD is not there, 126 if it cannot run, as a shell says). A Ctrl-C
typed on the terminal reaches CMD with abx; one or a SIGTERM sent to abx alone is passed
on to CMD, which is killed if it has not ended 5 s later. This is how a script that uses abx is tested without a cluster. Each
run starts empty, in a temporary state dir, unless --state-dir names one.`,
		Example: `  abx emulator exec -- ./examples/quickstart.sh
  abx emulator exec -- bash -c 'abx create --template base -q'
  abx emulator exec --time-scale 60 -- ./waits-for-expiry.sh`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError(cmd, "abx emulator exec needs a command to run after --")
			}
			if err := opts.check(); err != nil {
				return err
			}
			opts.Argv = args
			return cmdutil.Run(cmd, opts, runF, runExec)
		},
	}
	opts.addFlags(cmd, f.Getenv, "where sandboxes are kept (default: a temporary dir, removed at exit)")
	cmdutil.PassThrough(cmd)
	return cmdutil.NoJSON(cmd) // the command's own output
}

func runExec(ctx context.Context, opts *ExecOptions) error {
	return opts.local().Exec(ctx, opts.IO, opts.Argv)
}
