package sandbox

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// URLOptions are the inputs of `abx url`.
type URLOptions struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID   string
	Port int
}

type urlResult struct {
	SandboxID string `json:"sandboxID"`
	Port      int    `json:"port"`
	URL       string `json:"url"`
}

// urlNames are the names of `abx url`, declared once: its command takes
// them, and its group's Verbs lists them.
var urlNames = cmdutil.Names{"url"}

// NewCmdURL builds `abx url`.
func NewCmdURL(f *cmdutil.Factory, runF func(context.Context, *URLOptions) error) *cobra.Command {
	opts := &URLOptions{Printer: f.Printer, Sandboxes: f.Sandboxes}
	cmd := &cobra.Command{
		Use:   urlNames.Use("ID PORT"),
		Short: "Print the public URL of a port of a sandbox",
		Long: `Print the URL at which PORT of a sandbox is reached through the gateway. It is computed
from the configuration (domain, protocol, base URL) without any request.`,
		Example: `  abx url "$id" 8080
  curl "$(abx url "$id" 8080)/health"`,
		Args: cmdutil.ExactArgs("ID", "PORT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = cmdutil.SandboxID(args[0]); err != nil {
				return err
			}
			if opts.Port, err = cmdutil.ParsePort(args[1]); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runURL)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Does(cmd, "sandbox.url", "port=port#1")
}

func runURL(ctx context.Context, opts *URLOptions) error {
	u, err := opts.Sandboxes.PortURL(ctx, opts.ID, opts.Port)
	if err != nil {
		return err
	}
	return opts.Printer.Print(urlResult{SandboxID: opts.ID, Port: opts.Port, URL: u}, []string{u}, func() error {
		return opts.Printer.Line(u)
	})
}
