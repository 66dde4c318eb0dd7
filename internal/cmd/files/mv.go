package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// MvOptions are the inputs of `abx files mv`: target.Path is the source.
type MvOptions struct {
	Printer *output.Printer
	target
	Destination string
}

// NewCmdMv builds `abx files mv`.
func NewCmdMv(f *cmdutil.Factory, runF func(context.Context, *MvOptions) error) *cobra.Command {
	opts := &MvOptions{Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	return verb(opts, runF, runMv, &cobra.Command{
		Use:   "mv ID SOURCE DESTINATION",
		Short: "Move or rename a file or directory",
		Long: `Move or rename a file or directory inside the sandbox. DESTINATION is the new path, not
a directory to move into.`,
		Example: `  abx files mv "$id" out.txt archive/out.txt`,
		Args:    cmdutil.ExactArgs("ID", "SOURCE", "DESTINATION"),
	}, cmdutil.CompleteSandboxFiles(f, 2), "files.move", "path=SOURCE", "to=DESTINATION")
}

func runMv(ctx context.Context, opts *MvOptions) error {
	e, err := opts.Sandboxes.Move(ctx, opts.ID, opts.User, opts.Path, opts.Destination)
	if err != nil {
		return err
	}
	opts.Printer.Note("moved %s to %s", opts.Path, e.Path)
	return printEntry(opts.Printer, e)
}

// parse reads the target, whose path is the source, and the destination.
func (opts *MvOptions) parse(cmd *cobra.Command, args []string) error {
	if err := opts.target.parse(cmd, args); err != nil {
		return err
	}
	opts.Destination = args[2]
	return nil
}
