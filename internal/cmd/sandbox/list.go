package sandbox

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ListOptions are the inputs of `abx list`.
type ListOptions struct {
	IO        *output.Streams
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	Filter provider.ListOptions
}

// listNames are the names of `abx list`, declared once: its command takes
// them, and its group's Verbs lists them.
var listNames = cmdutil.Names{"list", "ls"}

// NewCmdList builds `abx list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: f.IO, Printer: f.Printer, Sandboxes: f.Sandboxes}
	var filter filterFlags
	cmd := &cobra.Command{
		Use:     listNames.Use("[--state running,paused] [--metadata k=v]... [--limit N]"),
		Aliases: listNames.Aliases(),
		Short:   "List sandboxes",
		Long: `List sandboxes, oldest first, following the server's pages until --limit (default:
all of them). Piped, the table is tab-separated without a header and times are RFC 3339.`,
		Example: `  abx list
  abx list --state paused --metadata owner=ci
  abx list -o json | jq -r '.[] | select(.state == "running") | .sandboxID'
  abx list -o name | xargs -r abx kill`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			limit := opts.Filter.Limit
			var err error
			if opts.Filter, err = filter.parse(); err != nil {
				return err
			}
			if opts.Filter.Limit = limit; cmd.Flags().Changed("limit") && limit < 1 {
				return abxerr.New(abxerr.InvalidInput, "invalid --limit %d: must be 1 or more", limit).
					WithHint("leave --limit out to list every sandbox")
			}
			return cmdutil.Run(cmd, opts, runF, runList)
		},
	}
	filter.add(cmd)
	cmd.Flags().IntVar(&opts.Filter.Limit, "limit", 0, "list at most N sandboxes (default: all)")
	cmdutil.CompleteFlag(cmd, "state", cmdutil.CommaList(sandboxes.Op("sandbox.list").Input("state").Enum))
	return cmdutil.Does(cmd, "sandbox.list")
}

// filterFlags are the filters list and kill --all share.
type filterFlags struct{ states, metadata []string }

func (ff *filterFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&ff.states, "state", nil, "only sandboxes in these states: running, paused (comma-separated)")
	cmd.Flags().StringArrayVar(&ff.metadata, "metadata", nil, "only sandboxes with metadata KEY=VALUE (repeatable, all must match)")
}

func (ff *filterFlags) parse() (provider.ListOptions, error) {
	var o provider.ListOptions
	var err error
	o.States = cmdutil.ParseStates(ff.states)
	o.Metadata, err = cmdutil.ParseKeyValues("--metadata", ff.metadata)
	return o, err
}

func (ff *filterFlags) set() bool { return len(ff.states) > 0 || len(ff.metadata) > 0 }

func runList(ctx context.Context, opts *ListOptions) error {
	list, err := opts.Sandboxes.List(ctx, opts.Filter)
	if err != nil {
		return err
	}
	return printSandboxes(opts.IO, opts.Printer, list)
}
