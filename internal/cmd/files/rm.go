package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// RmOptions are the inputs of `abx files rm`.
type RmOptions struct {
	Printer *output.Printer
	target
}

// NewCmdRm builds `abx files rm`.
func NewCmdRm(f *cmdutil.Factory, runF func(context.Context, *RmOptions) error) *cobra.Command {
	opts := &RmOptions{Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	return verb(opts, runF, runRm, &cobra.Command{
		Use:   "rm ID PATH",
		Short: "Remove a file or a directory with its contents",
		Long: `Remove a file, or a directory and everything in it. A path that is not there is left as
it is, and said so ("PATH: not there, nothing removed"): that succeeds, as rm -f does.
A symbolic link is removed, not what it leads to.`,
		Example: `  abx files rm "$id" /tmp/scratch`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
	}, cmdutil.CompleteSandboxFiles(f, 1), "files.remove", "path=PATH")
}

func runRm(ctx context.Context, opts *RmOptions) error {
	removed, err := opts.Sandboxes.Remove(ctx, opts.ID, opts.User, opts.Path)
	switch {
	case err != nil:
		return err
	case !removed:
		opts.Printer.Note("%s: not there, nothing removed", opts.Path)
		return nil
	}
	opts.Printer.Note("removed %s", opts.Path)
	return nil
}
