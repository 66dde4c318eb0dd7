package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// MvOptions are the inputs of `abx files mv`.
type MvOptions struct {
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID          string
	User        string
	Source      string
	Destination string
}

// NewCmdMv builds `abx files mv`.
func NewCmdMv(f *cmdutil.Factory, runF func(context.Context, *MvOptions) error) *cobra.Command {
	opts := &MvOptions{Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "mv ID SOURCE DESTINATION",
		Short: "Move or rename a file or directory",
		Long: `Move or rename a file or directory inside the sandbox. DESTINATION is the new path, not
a directory to move into.`,
		Example: `  abx files mv "$id" out.txt archive/out.txt`,
		Args:    cmdutil.ExactArgs("ID", "SOURCE", "DESTINATION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = parseArgs(args); err != nil {
				return err
			}
			opts.User, opts.Source, opts.Destination = userOf(cmd), args[1], args[2]
			return cmdutil.Run(cmd, opts, runF, runMv)
		},
	}
	return cmdutil.Needs(cmd, provider.FilesRW)
}

func runMv(ctx context.Context, opts *MvOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	e, err := c.Move(ctx, opts.Source, opts.Destination)
	if err != nil {
		return err
	}
	opts.Printer.Note("moved %s to %s", opts.Source, e.Path)
	return printEntry(opts.Printer, e)
}
