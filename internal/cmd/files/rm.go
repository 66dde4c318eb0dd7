package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// RmOptions are the inputs of `abx files rm`.
type RmOptions struct {
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID   string
	User string
	Path string
}

// NewCmdRm builds `abx files rm`.
func NewCmdRm(f *cmdutil.Factory, runF func(context.Context, *RmOptions) error) *cobra.Command {
	opts := &RmOptions{Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "rm ID PATH",
		Short: "Remove a file or a directory with its contents",
		Long: `Remove a file, or a directory and everything in it. Removing a path that does not exist
succeeds.`,
		Example: `  abx files rm "$id" /tmp/scratch`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = parseArgs(args); err != nil {
				return err
			}
			opts.User, opts.Path = userOf(cmd), args[1]
			return cmdutil.Run(cmd, opts, runF, runRm)
		},
	}
	return cmdutil.Needs(cmd, provider.FilesRW)
}

func runRm(ctx context.Context, opts *RmOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	if err := c.Remove(ctx, opts.Path); err != nil {
		return err
	}
	opts.Printer.Note("removed %s", opts.Path)
	return nil
}
