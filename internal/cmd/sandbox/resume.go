package sandbox

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ResumeOptions are the inputs of `abx resume`.
type ResumeOptions struct {
	Printer  *output.Printer
	Provider func() (provider.Provider, error)

	ID      string
	Timeout time.Duration
}

// NewCmdResume builds `abx resume`.
func NewCmdResume(f *cmdutil.Factory, runF func(context.Context, *ResumeOptions) error) *cobra.Command {
	opts := &ResumeOptions{Printer: f.Printer, Provider: f.Provider}
	var timeout string
	cmd := &cobra.Command{
		Use:   "resume ID [--timeout D]",
		Short: "Resume a paused sandbox",
		Long: `Resume a paused sandbox, which then lives for --timeout (default 5m). Resuming a
running sandbox is refused by the server; 'abx connect' accepts both.`,
		Example: `  abx resume "$id" --timeout 30m`,
		Args:    cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.Timeout, err = idAndLifetime(cmd, args[0], timeout); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runResume)
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", "lifetime after resuming (default 5m)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, cmdutil.InState("paused"))
	return cmdutil.Needs(cmd, provider.SandboxPause)
}

func runResume(ctx context.Context, opts *ResumeOptions) error {
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	if err := p.Resume(ctx, opts.ID, opts.Timeout); err != nil {
		return err
	}
	return printChange(opts.Printer, change{SandboxID: opts.ID, State: "running"}, "sandbox %s resumed", opts.ID)
}
