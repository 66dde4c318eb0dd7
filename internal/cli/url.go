package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// URLOptions are the inputs of `abx url`.
type URLOptions struct {
	IO       *output.Streams
	Provider func() (provider.Provider, error)
	Format   output.Format

	ID   string
	Port int
}

type urlResult struct {
	SandboxID string `json:"sandboxID"`
	Port      int    `json:"port"`
	URL       string `json:"url"`
}

// NewCmdURL builds `abx url`.
func NewCmdURL(f *Factory, runF func(context.Context, *URLOptions) error) *cobra.Command {
	opts := &URLOptions{IO: f.IO, Provider: f.Provider}
	cmd := &cobra.Command{
		Use:   "url ID PORT",
		Short: "Print the public URL of a port of a sandbox",
		Long: `Print the URL at which PORT of a sandbox is reached through the gateway. It is computed
from the configuration (domain, protocol, base URL) without any request.`,
		Example: `  abx url "$id" 8080
  curl "$(abx url "$id" 8080)/health"`,
		Args: exactArgs("ID", "PORT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.ID = f.Format, args[0]
			if err := checkIDs(opts.ID); err != nil {
				return err
			}
			var err error
			if opts.Port, err = parsePort(args[1]); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runURL(opts)
		},
	}
	return needs(cmd, provider.PortsURL)
}

func runURL(opts *URLOptions) error {
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	u, err := p.PortURL(opts.ID, opts.Port)
	if err != nil {
		return err
	}
	if opts.Format == output.JSON {
		return output.WriteJSON(opts.IO.Out, urlResult{SandboxID: opts.ID, Port: opts.Port, URL: u})
	}
	_, err = fmt.Fprintln(opts.IO.Out, u)
	return err
}
