package sandbox

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ConnectOptions are the inputs of `abx connect`.
type ConnectOptions struct {
	IO       *output.Streams
	Printer  *output.Printer
	Provider func() (provider.Provider, error)

	ID      string
	Timeout time.Duration
}

// NewCmdConnect builds `abx connect`.
func NewCmdConnect(f *cmdutil.Factory, runF func(context.Context, *ConnectOptions) error) *cobra.Command {
	opts := &ConnectOptions{IO: f.IO, Printer: f.Printer, Provider: f.Provider}
	var timeout string
	cmd := &cobra.Command{
		Use:   "connect ID [--timeout D]",
		Short: "Make sure a sandbox runs, resuming it if paused",
		Long: `Connect to a sandbox: a paused sandbox is resumed, a running one is left running,
and its deadline is extended to at least --timeout from now (default 5m); it is never
shortened (use 'abx timeout' for that). The note on stderr and the JSON field "resumed"
say which happened.`,
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
	cmd.Flags().StringVar(&timeout, "timeout", "", "keep the sandbox alive at least this long from now (default 5m)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Needs(cmd, provider.SandboxLifecycle)
}

func runConnect(ctx context.Context, opts *ConnectOptions) error {
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	r, err := p.Connect(ctx, opts.ID, opts.Timeout)
	if err != nil {
		return err
	}
	if r.Resumed {
		opts.Printer.Note("sandbox %s resumed", r.SandboxID)
	} else {
		opts.Printer.Note("sandbox %s already %s", r.SandboxID, cmdutil.Dash(r.State))
	}
	return printSandbox(opts.IO, opts.Printer, &r.Sandbox, r)
}
