package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ListOptions are the inputs of `abx list`.
type ListOptions struct {
	IO       *output.Streams
	Provider func() (provider.Provider, error)
	Format   output.Format

	Filter provider.ListOptions
}

// NewCmdList builds `abx list`.
func NewCmdList(f *Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Provider: f.Provider}
	var states, metadata []string
	cmd := &cobra.Command{
		Use:     "list [--state running,paused] [--metadata k=v]... [--limit N]",
		Aliases: []string{"ls"},
		Short:   "List sandboxes",
		Long: `List sandboxes, oldest first, following the server's pages until --limit (default:
all of them). Piped, the table is tab-separated without a header and times are RFC 3339.`,
		Example: `  abx list
  abx list --state paused --metadata owner=ci
  abx list -o json | jq -r '.[] | select(.state == "running") | .sandboxID'
  abx list | cut -f1`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Format = f.Format
			var err error
			if opts.Filter.States, err = parseStates(states); err != nil {
				return err
			}
			if opts.Filter.Metadata, err = parseKeyValues("--metadata", metadata); err != nil {
				return err
			}
			if cmd.Flags().Changed("limit") && opts.Filter.Limit < 1 {
				return usageError(cmd, "invalid --limit %d: must be 1 or more", opts.Filter.Limit)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runList(cmd.Context(), opts)
		},
	}
	addFilterFlags(cmd, &states, &metadata)
	cmd.Flags().IntVar(&opts.Filter.Limit, "limit", 0, "list at most N sandboxes (default: all)")
	return needs(cmd, provider.SandboxLifecycle)
}

// addFilterFlags declares the filters list and kill --all share.
func addFilterFlags(cmd *cobra.Command, states, metadata *[]string) {
	cmd.Flags().StringSliceVar(states, "state", nil, "only sandboxes in these states: running, paused (comma-separated)")
	cmd.Flags().StringArrayVar(metadata, "metadata", nil, "only sandboxes with metadata KEY=VALUE (repeatable, all must match)")
}

func runList(ctx context.Context, opts *ListOptions) error {
	p, err := opts.Provider()
	if err != nil {
		return err
	}
	list, err := p.List(ctx, opts.Filter)
	if err != nil {
		return err
	}
	return printSandboxes(opts.IO, opts.Format, list)
}
