package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// PsStdinOptions are the inputs of `abx ps stdin`.
type PsStdinOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID    string
	PID   uint32
	Data  []byte // stdin to send; nil reads abx's stdin
	Close bool   // close stdin after sending
}

// NewCmdPsStdin builds `abx ps stdin`.
func NewCmdPsStdin(f *cmdutil.Factory, runF func(context.Context, *PsStdinOptions) error) *cobra.Command {
	opts := &PsStdinOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   "stdin ID PID [DATA] [--close]",
		Short: "Send data to a process's stdin, from the argument or abx's stdin",
		Long: `Send data to a process's stdin: the DATA argument as given, or without it everything
abx reads from its own stdin, streamed in chunks. --close closes the process's stdin
afterwards (envd 0.5.2 and later).

Processes started by 'abx exec' have stdin at /dev/null; start the command with
a reader of your own (for example a named pipe) to feed it later.`,
		Example: `  abx ps stdin "$id" 4242 'print(1)\n'
  cat input.txt | abx ps stdin "$id" 4242 --close`,
		Args: cmdutil.RangeArgs(2, "ID", "PID", "[DATA]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.PID, err = target(args); err != nil {
				return err
			}
			if len(args) == 3 {
				opts.Data = []byte(args[2])
			}
			return cmdutil.Run(cmd, opts, runF, runPsStdin)
		},
	}
	cmd.Flags().BoolVar(&opts.Close, "close", false, "close the process's stdin after sending")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.Stream(cmd)
	return cmdutil.Does(cmd, "process.stdin", pidSpelling)
}

func runPsStdin(ctx context.Context, opts *PsStdinOptions) error {
	src := opts.IO.In
	if opts.Data != nil {
		src = bytes.NewReader(opts.Data)
	}
	// abx's stdin is read once the operation has checked everything.
	sent, err := opts.Sandboxes.Stdin(ctx, opts.ID, opts.PID, src, opts.Close)
	if err != nil {
		return stdinError(err, opts.PID)
	}
	opts.Printer.Note("sent %s to process %d", human.Count(sent, "byte", "bytes"), opts.PID)
	return nil
}

// stdinError says plainly that a process has no stdin to feed.
func stdinError(err error, pid uint32) error {
	err = envd.AsError(err)
	if errors.Is(err, envd.ErrNoStdin) {
		e := *abxerr.From(err)
		e.Message = fmt.Sprintf("process %d has no open stdin: it was started without one, or it was closed", pid)
		e.Hint = "only processes started with stdin open (abx exec -i) can be fed"
		return &e
	}
	return err
}
