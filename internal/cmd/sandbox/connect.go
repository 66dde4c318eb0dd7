package sandbox

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ConnectOptions are the inputs of `abx connect`.
type ConnectOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID      string
	Timeout time.Duration
}

// connectNames are the names of `abx connect`, declared once: its command takes
// them, and its group's Verbs lists them.
var connectNames = cmdutil.Names{"connect"}

// NewCmdConnect builds `abx connect`.
func NewCmdConnect(f *cmdutil.Factory, runF func(context.Context, *ConnectOptions) error) *cobra.Command {
	opts := &ConnectOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var timeout string
	cmd := &cobra.Command{
		Use:   connectNames.Use("ID [--timeout D]"),
		Short: "Make sure a sandbox runs, resuming it if paused",
		Long: `Connect to a sandbox: a paused sandbox is resumed, a running one is left running.

A running sandbox's deadline is extended to at least --timeout from now (default 5m);
it is never shortened (use 'abx timeout' for that). A paused sandbox keeps no deadline,
so resuming it sets one: --timeout from now (default 5m), whatever it had before the
pause. Pass --timeout when it should live longer. The note on stderr says which happened
and when the sandbox now ends; the JSON field "resumed" says which happened.`,
		Example: `  abx connect default--code-interpreter-x7k2p
  abx connect "$id" --timeout 1h -o json | jq .resumed`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.Timeout, err = idAndLifetime(cmd, args[0], timeout); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runConnect)
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", "keep the sandbox alive at least this long from now; a paused one gets exactly this (default 5m)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Does(cmd, "sandbox.connect")
}

func runConnect(ctx context.Context, opts *ConnectOptions) error {
	r, err := opts.Sandboxes.Connect(ctx, opts.ID, opts.Timeout)
	if err != nil {
		return err
	}
	if r.Resumed {
		noteResumed(opts.IO, opts.Printer, &r.Sandbox, opts.Timeout)
	} else {
		opts.Printer.Note("sandbox %s already %s, %s", r.SandboxID, output.Dash(r.State), opts.IO.Ends(r.EndAt, 0))
	}
	return printSandbox(opts.IO, opts.Printer, &r.Sandbox, r)
}

// noteResumed says when a sandbox connect or resume resumed now ends. The
// service counts the deadline from the resume (docs/protocol.md,
// lifetimes): what it had before the pause is gone, so without --timeout
// the note says the 5 minutes were the default. The time left is the
// service's endAt, which a service may set later than asked.
func noteResumed(io *output.Streams, p *output.Printer, s *provider.Sandbox, timeout time.Duration) {
	why := ""
	if timeout == 0 {
		why = ": a paused sandbox keeps no deadline, and resuming gave it --timeout's default; pass --timeout for longer"
	}
	p.Note("sandbox %s resumed, %s%s", s.SandboxID, io.Ends(s.EndAt, 0), why)
}
