package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

// MkdirOptions are the inputs of `abx files mkdir`.
type MkdirOptions struct {
	Printer *output.Printer
	target
}

// NewCmdMkdir builds `abx files mkdir`.
func NewCmdMkdir(f *cmdutil.Factory, runF func(context.Context, *MkdirOptions) error) *cobra.Command {
	opts := &MkdirOptions{Printer: f.Printer, target: target{Envd: f.Envd}}
	return verb(opts, runF, runMkdir, &cobra.Command{
		Use:   "mkdir ID PATH",
		Short: "Create a directory and its parents",
		Long: `Create a directory and any missing parents. A directory that already exists is refused
by the sandbox (exit 1).`,
		Example: `  abx files mkdir "$id" work/out`,
		Args:    cmdutil.ExactArgs("ID", "PATH"),
	}, cmdutil.CompleteSandboxFiles(f, 1))
}

func runMkdir(ctx context.Context, opts *MkdirOptions) error {
	e, err := ask(ctx, &opts.target, func(c *envd.Client) (envd.Entry, error) { return c.MakeDir(ctx, opts.Path) })
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
