package sandbox

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// PauseOptions are the inputs of `abx pause`.
type PauseOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID string
}

// pauseNames are the names of `abx pause`, declared once: its command takes
// them, and its group's Verbs lists them.
var pauseNames = cmdutil.Names{"pause"}

// NewCmdPause builds `abx pause`.
func NewCmdPause(f *cmdutil.Factory, runF func(context.Context, *PauseOptions) error) *cobra.Command {
	opts := &PauseOptions{Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   pauseNames.Use("ID"),
		Short: "Pause a sandbox, keeping its memory and files",
		Long: `Pause a sandbox. Its processes stop and its state is kept until it is resumed
('abx resume' or 'abx connect'). Pausing a paused sandbox succeeds.`,
		Example: `  abx pause "$id"`,
		Args:    cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runPause)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, cmdutil.InState("running"))
	return cmdutil.Does(cmd, "sandbox.pause")
}

func runPause(ctx context.Context, opts *PauseOptions) error {
	if err := opts.Sandboxes.Pause(ctx, opts.ID); err != nil {
		return err
	}
	return printChange(opts.Printer, change{SandboxID: opts.ID, State: "paused"}, "sandbox %s paused", opts.ID)
}
