// Package sandbox holds the commands that manage sandboxes themselves:
// create, connect, list, info, kill, timeout, pause, resume and url.
package sandbox

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// CreateOptions are the inputs of `abx create`.
type CreateOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	Request provider.CreateRequest
}

// createNames are the names of `abx create`, declared once: its command takes
// them, and its group's Verbs lists them.
var createNames = cmdutil.Names{"create"}

// NewCmdCreate builds `abx create`.
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var timeout string
	var metadata, env []string
	cmd := &cobra.Command{
		Use:   createNames.Use("--template T [flags]"),
		Short: "Create a sandbox",
		Long: `Create a sandbox from a template and print it.

The sandbox lives for --timeout (default: the server's, 5 minutes), then is killed,
or paused with --auto-pause. Durations take Go syntax (90s, 5m, 2h) or plain seconds,
between 30 seconds and 30 days.

A template the service does not have exits 3 (E3001). The service lists no templates:
a cluster's are the SandboxSets its operator deployed, which its admin can name.

A snapshot's ID as the template makes a clone of it ('abx snapshot create'), named with
--name or --generate-name where wanted; the clone starts with the snapshot's files,
environment and network, and --env is not read (docs/snapshots.md).`,
		Example: `  abx create --template code-interpreter
  id=$(abx create --template base --timeout 1h --metadata owner=ci -q)
  abx create --template base --env DEBUG=1 --no-internet -o json | jq -r .sandboxID
  abx create --template "$snap" --name attempt-2`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if cmd.Flags().Changed("timeout") {
				in := sandboxes.Op("sandbox.create").Input("timeout")
				if opts.Request.Timeout, err = cmdutil.ParseSeconds("--timeout", timeout, in, "for the command's default"); err != nil {
					return err
				}
			}
			if opts.Request.Metadata, err = cmdutil.ParseKeyValues("--metadata", metadata); err != nil {
				return err
			}
			if opts.Request.Env, err = cmdutil.ParseKeyValues("--env", env); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runCreate)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Request.Template, "template", "t", "", "template to start from (required)")
	fl.StringVar(&timeout, "timeout", "", "lifetime before the sandbox is killed or paused, 30s..30d (default 5m)")
	fl.StringArrayVar(&metadata, "metadata", nil, "metadata KEY=VALUE to attach (repeatable)")
	fl.StringArrayVarP(&env, "env", "e", nil, "environment variable KEY=VALUE for processes in the sandbox (repeatable)")
	fl.BoolVar(&opts.Request.AutoPause, "auto-pause", false, "pause instead of kill when the timeout passes")
	fl.BoolVar(&opts.Request.NoInternet, "no-internet", false, "deny the sandbox access to the internet")
	fl.StringVar(&opts.Request.Name, "name", "", "a clone's name (its template a snapshot's ID): its ID is NAMESPACE--NAME")
	fl.StringVar(&opts.Request.GenerateName, "generate-name", "", "a clone's name prefix, completed by the service")
	cmd.MarkFlagsMutuallyExclusive("name", "generate-name")
	fl.BoolP("quiet", "q", false, "print only the sandbox ID (as -o name does)")
	cmdutil.AsksBareIDs(cmd, "quiet")
	// The sandbox-manager has no endpoint that lists templates (abx
	// template list is unsupported), so these are suggestions: the two
	// templates most clusters and the emulator have. Any name can be typed.
	cmdutil.CompleteFlag(cmd, "template", cmdutil.Choices(
		"base\tcommon template name",
		"code-interpreter\tcommon template name",
	))
	return cmdutil.Does(cmd, "sandbox.create")
}

func runCreate(ctx context.Context, opts *CreateOptions) error {
	s, err := opts.Sandboxes.Create(ctx, opts.Request)
	if err != nil {
		return err
	}
	// The service gives a new sandbox the lifetime asked for exactly: say
	// it as it was given (docs/output.md).
	opts.Printer.Note("sandbox %s created, %s", s.SandboxID, opts.IO.Ends(s.EndAt, opts.Request.Timeout))
	return printSandbox(opts.IO, opts.Printer, s, s)
}
