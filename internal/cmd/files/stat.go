package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

// StatOptions are the inputs of `abx files stat`.
type StatOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	target
}

// NewCmdStat builds `abx files stat`.
func NewCmdStat(f *cmdutil.Factory, runF func(context.Context, *StatOptions) error) *cobra.Command {
	opts := &StatOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	return verb(opts, runF, runStat, &cobra.Command{
		Use:   "stat ID PATH",
		Short: "Describe a file or directory",
		Long: `Describe one file or directory: its type, size, modification time, permissions, owner,
group and path. A path that does not exist exits 3.`,
		Example: `  abx files stat "$id" /etc/hostname -o json | jq .size`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
	}, cmdutil.CompleteSandboxFiles(f, 1), "files.stat", "path=PATH")
}

func runStat(ctx context.Context, opts *StatOptions) error {
	e, err := opts.Sandboxes.Stat(ctx, opts.ID, opts.User, opts.Path)
	if err != nil {
		return err
	}
	// Programs get the entry, not a list of one (docs/json.md, files).
	return printEntries(opts.IO, opts.Printer, e, []envd.Entry{e}, true, false)
}
