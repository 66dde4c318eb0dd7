package process

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// PsAttachOptions are the inputs of `abx ps attach`.
type PsAttachOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID  string
	PID uint32
}

// NewCmdPsAttach builds `abx ps attach`.
func NewCmdPsAttach(f *cmdutil.Factory, runF func(context.Context, *PsAttachOptions) error) *cobra.Command {
	opts := &PsAttachOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   "attach ID PID",
		Short: "Follow a running process's output until it ends, and exit with its status",
		Long: `Attach to a running process: its stdout and stderr stream to abx's from now on
(output from before is not kept by envd) and abx exits with the process's exit
status when it ends. Ctrl-C detaches and leaves the process running. A stream
that a proxy or the network cuts is taken up again, as exec's is.`,
		Example: `  pid=$(abx exec "$id" --background -- ./job.sh)
  abx ps attach "$id" "$pid"`,
		Args: cmdutil.ExactArgs("ID", "PID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.PID, err = target(args); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runPsAttach)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.PassThrough(cmd)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "process.attach", pidSpelling)
}

func runPsAttach(ctx context.Context, opts *PsAttachOptions) error {
	out := newSink(opts.Printer, false)
	x, err := opts.Sandboxes.Attach(ctx, opts.ID, opts.PID, out)
	if errors.Is(err, sandboxes.ErrNoProcess) {
		e := *abxerr.From(err)
		e.Hint = "it may have ended already; run 'abx ps " + opts.ID + "'"
		return &e
	}
	return out.end(opts.ID, x, err)
}
