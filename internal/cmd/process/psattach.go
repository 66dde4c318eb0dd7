package process

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
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
	return cmdutil.Needs(cmd, provider.ProcessManage)
}

func runPsAttach(ctx context.Context, opts *PsAttachOptions) error {
	c, err := opts.Sandboxes.Envd(ctx, opts.ID, "", provider.ProcessManage)
	if err != nil {
		return err
	}
	noteDiscarded(ctx, opts, c)
	out := newSink(opts.Printer, false)
	x, err := remoteproc.Attach(ctx, c, opts.PID, out)
	if e := abxerr.From(err); e != nil && e.Code == abxerr.NotFound {
		// envd knows no such process (a sandbox gone is said below).
		cp := *e
		cp.Message = fmt.Sprintf("no running process %d in sandbox %s", opts.PID, opts.ID)
		cp.Hint = "it may have ended already; run 'abx ps " + opts.ID + "'"
		return &cp
	}
	note, err := sandboxEnded(ctx, opts.Sandboxes, opts.ID, x, err)
	if note != "" {
		opts.Printer.Note("%s", note)
	}
	if err != nil {
		return cutHint(err, opts.ID)
	}
	if err := out.ended(x); err != nil {
		return err
	}
	if x.Code != 0 {
		return abxerr.Status(x.Code)
	}
	return nil
}

// noteDiscarded says, before attaching, that a command started with
// --background shows nothing: its output goes to /dev/null in the sandbox
// (docs/exec.md, "Background commands"). A listing that fails says
// nothing; the attach says what is wrong.
func noteDiscarded(ctx context.Context, opts *PsAttachOptions, c *envd.Client) {
	list, err := c.List(ctx)
	if err != nil {
		return
	}
	for _, p := range list {
		if p.PID == opts.PID && remoteproc.Discarded(p) {
			opts.Printer.Note("process %d was started with --background: its output goes to /dev/null in the sandbox and was never kept, so only its end will show", opts.PID)
		}
	}
}
