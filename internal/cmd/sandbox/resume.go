package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ResumeOptions are the inputs of `abx resume`.
type ResumeOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID      string
	Timeout time.Duration
}

// resumeNames are the names of `abx resume`, declared once: its command takes
// them, and its group's Verbs lists them.
var resumeNames = cmdutil.Names{"resume"}

// NewCmdResume builds `abx resume`.
func NewCmdResume(f *cmdutil.Factory, runF func(context.Context, *ResumeOptions) error) *cobra.Command {
	opts := &ResumeOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var timeout string
	cmd := &cobra.Command{
		Use:   resumeNames.Use("ID [--timeout D]"),
		Short: "Resume a paused sandbox",
		Long: `Resume a paused sandbox. A paused sandbox keeps no deadline, so resuming sets one:
--timeout from now (default 5m), whatever it had before the pause; the note on stderr
says when it now ends, and -o json prints the sandbox as 'abx connect' does. Resuming a
running sandbox is refused by the server (exit 1, E5003, with a hint); 'abx connect'
accepts both.`,
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
	cmd.Flags().StringVar(&timeout, "timeout", "", "lifetime from the resume, whatever it had before the pause (default 5m)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, cmdutil.InState("paused"))
	return cmdutil.Does(cmd, "sandbox.resume")
}

func runResume(ctx context.Context, opts *ResumeOptions) error {
	if err := opts.Sandboxes.Resume(ctx, opts.ID, opts.Timeout); err != nil {
		return err
	}
	// sandbox-manager answers a resume with 204 and no body: the sandbox
	// is read back, so that resume prints what connect prints.
	s, err := opts.Sandboxes.Get(ctx, opts.ID)
	if err != nil {
		e := *abxerr.From(err)
		e.Message = fmt.Sprintf("sandbox %s was resumed, but reading it back failed: %s", opts.ID, e.Message)
		e.Hint = fmt.Sprintf("'abx info %s' shows it", opts.ID)
		return &e
	}
	noteResumed(opts.IO, opts.Printer, s, opts.Timeout)
	// People read the note; a table of the sandbox would be new on the
	// stdout of scripts that resume and go on.
	return opts.Printer.Print(provider.ConnectResult{Sandbox: *s, Resumed: true}, []string{s.SandboxID}, nil)
}
