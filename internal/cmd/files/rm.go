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
	opts := &RmOptions{Printer: f.Printer, target: target{Envd: f.Envd}}
	return verb(opts, runF, runRm, &cobra.Command{
		Use:   "rm ID PATH",
		Short: "Remove a file or a directory with its contents",
		Long: `Remove a file, or a directory and everything in it. Removing a path that does not exist
succeeds.`,
		Example: `  abx files rm "$id" /tmp/scratch`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
	}, cmdutil.CompleteSandboxFiles(f, 1))
}

func runRm(ctx context.Context, opts *RmOptions) error {
	c, err := opts.client(ctx)
	if err != nil {
		return err
	}
	if err := c.Remove(ctx, opts.Path); err != nil {
		return err
	}
	opts.Printer.Note("removed %s", opts.Path)
	return nil
}
