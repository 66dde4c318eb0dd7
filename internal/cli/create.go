package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// CreateOptions are the inputs of `abx create`.
type CreateOptions struct {
	IO       *output.Streams
	Provider func() (provider.Provider, error)
	Format   output.Format

	Request provider.CreateRequest
	Quiet   bool
}

// NewCmdCreate builds `abx create`.
func NewCmdCreate(f *Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{IO: f.IO, Provider: f.Provider}
	var timeout string
	var metadata, env []string
	cmd := &cobra.Command{
		Use:   "create --template T [flags]",
		Short: "Create a sandbox",
		Long: `Create a sandbox from a template and print it.

The sandbox lives for --timeout (default: the server's, 5 minutes), then is killed,
or paused with --auto-pause. Durations take Go syntax (90s, 5m, 2h) or plain seconds,
between 30 seconds and 30 days.`,
		Example: `  abx create --template code-interpreter
  id=$(abx create --template base --timeout 1h --metadata owner=ci -q)
  abx create --template base --env DEBUG=1 --no-internet -o json | jq -r .sandboxID`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Format = f.Format
			if opts.Request.Template == "" {
				return usageError(cmd, "--template is required")
			}
			var err error
			if cmd.Flags().Changed("timeout") {
				if opts.Request.Timeout, err = parseTimeout("--timeout", timeout, minCreateTimeout); err != nil {
					return err
				}
			}
			if opts.Request.Metadata, err = parseKeyValues("--metadata", metadata); err != nil {
				return err
			}
			if opts.Request.Env, err = parseKeyValues("--env", env); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCreate(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Request.Template, "template", "t", "", "template to start from (required)")
	fl.StringVar(&timeout, "timeout", "", "lifetime before the sandbox is killed or paused, 30s..30d (default 5m)")
	fl.StringArrayVar(&metadata, "metadata", nil, "metadata KEY=VALUE to attach (repeatable)")
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE for processes in the sandbox (repeatable)")
	fl.BoolVar(&opts.Request.AutoPause, "auto-pause", false, "pause instead of kill when the timeout passes")
	fl.BoolVar(&opts.Request.NoInternet, "no-internet", false, "deny the sandbox access to the internet")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "print only the sandbox ID")
	return needs(cmd, provider.SandboxLifecycle)
}

func runCreate(ctx context.Context, opts *CreateOptions) error {
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	s, err := p.Create(ctx, opts.Request)
	if err != nil {
		return err
	}
	if opts.Quiet {
		_, err := fmt.Fprintln(opts.IO.Out, s.SandboxID)
		return err
	}
	note(opts.IO, opts.Format, "sandbox %s created, ends %s", s.SandboxID, endsIn(opts.IO, s.EndAt))
	return printSandbox(opts.IO, opts.Format, s, s)
}

// note tells people on stderr what a command did (kubectl's "pod/x
// deleted"); programs asking for JSON or names get only their data.
func note(io *output.Streams, format output.Format, msg string, args ...any) {
	if format == output.Table || format == output.Wide {
		_, _ = fmt.Fprintf(io.ErrOut, msg+"\n", args...)
	}
}

// endsIn is a note's "in 5m" (or the time when piped).
func endsIn(io *output.Streams, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := t.Sub(io.Now())
	if d < 0 {
		return "now"
	}
	return "in " + output.Duration(d)
}
