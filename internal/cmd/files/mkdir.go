package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// MkdirOptions are the inputs of `abx files mkdir`.
type MkdirOptions struct {
	Printer *output.Printer
	Envd    func(ctx context.Context, id, user string) (*envd.Client, error)

	ID   string
	User string
	Path string
}

// NewCmdMkdir builds `abx files mkdir`.
func NewCmdMkdir(f *cmdutil.Factory, runF func(context.Context, *MkdirOptions) error) *cobra.Command {
	opts := &MkdirOptions{Printer: f.Printer, Envd: f.EnvdClient}
	cmd := &cobra.Command{
		Use:   "mkdir ID PATH",
		Short: "Create a directory and its parents",
		Long: `Create a directory and any missing parents. A directory that already exists is refused
by the sandbox (exit 1).`,
		Example: `  abx files mkdir "$id" work/out`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, err = parseArgs(args); err != nil {
				return err
			}
			opts.User, opts.Path = userOf(cmd), args[1]
			return cmdutil.Run(cmd, opts, runF, runMkdir)
		},
	}
	return cmdutil.Needs(cmd, provider.FilesRW)
}

func runMkdir(ctx context.Context, opts *MkdirOptions) error {
	c, err := opts.Envd(ctx, opts.ID, opts.User)
	if err != nil {
		return err
	}
	e, err := c.MakeDir(ctx, opts.Path)
	if err != nil {
		return err
	}
	opts.Printer.Note("created %s", e.Path)
	return printEntry(opts.Printer, e)
}

// printEntry prints what mkdir and mv made for programs (docs/json.md,
// files); people have the note, and -o name prints nothing.
func printEntry(p *output.Printer, e envd.Entry) error {
	return p.Print(e, nil, nil)
}
