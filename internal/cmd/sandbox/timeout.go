package sandbox

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// TimeoutOptions are the inputs of `abx timeout`.
type TimeoutOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID      string
	Timeout time.Duration
}

// timeoutNames are the names of `abx timeout`, declared once: its command takes
// them, and its group's Verbs lists them.
var timeoutNames = cmdutil.Names{"timeout"}

// NewCmdTimeout builds `abx timeout`.
func NewCmdTimeout(f *cmdutil.Factory, runF func(context.Context, *TimeoutOptions) error) *cobra.Command {
	opts := &TimeoutOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   timeoutNames.Use("ID DURATION"),
		Short: "Set how long a sandbox has left to live",
		Long: `Set a sandbox's deadline to DURATION from now. This overwrites the deadline, so it can
shorten it as well as extend it. DURATION takes Go syntax (90s, 5m, 2h) or plain
seconds, up to 30 days.`,
		Example: `  abx timeout "$id" 1h
  abx timeout "$id" 600`,
		Args: cmdutil.ExactArgs("ID", "DURATION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			in := sandboxes.Op("sandbox.timeout").Input("timeout")
			if opts.Timeout, err = cmdutil.ParseSeconds("DURATION", args[1], in, ""); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runTimeout)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Does(cmd, "sandbox.timeout", "timeout=DURATION#1")
}

func runTimeout(ctx context.Context, opts *TimeoutOptions) error {
	if err := opts.Sandboxes.SetTimeout(ctx, opts.ID, opts.Timeout); err != nil {
		return err
	}
	return printChange(opts.Printer, change{SandboxID: opts.ID, Timeout: int64(opts.Timeout / time.Second)},
		"sandbox %s now %s", opts.ID, opts.IO.Ends(time.Time{}, opts.Timeout))
}
