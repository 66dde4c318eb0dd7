package sandbox

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// InfoOptions are the inputs of `abx info`.
type InfoOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID string
}

// infoNames are the names of `abx info`, declared once: its command takes
// them, and its group's Verbs lists them.
var infoNames = cmdutil.Names{"info"}

// NewCmdInfo builds `abx info`.
func NewCmdInfo(f *cmdutil.Factory, runF func(context.Context, *InfoOptions) error) *cobra.Command {
	opts := &InfoOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   infoNames.Use("ID"),
		Short: "Show one sandbox",
		Long: `Show one sandbox: its template, state, start and end times, CPU, memory, envd version,
domain and metadata. Piped, each row is a field<TAB>value line and times are RFC 3339;
-o json prints the sandbox object (docs/json.md). A sandbox that does not exist (never
did, was killed, or timed out) exits 3.`,
		Example: `  abx info default--code-interpreter-x7k2p
  abx info "$id" -o json | jq -r .endAt`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runInfo)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Does(cmd, "sandbox.info")
}

func runInfo(ctx context.Context, opts *InfoOptions) error {
	s, err := opts.Sandboxes.Get(ctx, opts.ID)
	if err != nil {
		return err
	}
	return printSandbox(opts.IO, opts.Printer, s, s)
}
