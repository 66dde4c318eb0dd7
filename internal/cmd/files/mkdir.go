package files

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/output"
)

// MkdirOptions are the inputs of `abx files mkdir`: target.Path is the
// first of Paths.
type MkdirOptions struct {
	Printer *output.Printer
	target
	Paths   []string
	Parents bool // -p: make missing parents, and take existing directories
}

// NewCmdMkdir builds `abx files mkdir`.
func NewCmdMkdir(f *cmdutil.Factory, runF func(context.Context, *MkdirOptions) error) *cobra.Command {
	opts := &MkdirOptions{Printer: f.Printer, target: target{Sandboxes: f.Sandboxes}}
	cmd := &cobra.Command{
		Use:   "mkdir ID PATH... [-p]",
		Short: "Create directories",
		Long: `Create each directory, in order, as mkdir does: a directory that already exists, or whose
parent does not, is an error. With -p, missing parents are made too and a directory that
already exists is fine. The first that cannot be made stops the command; those before it
were made.`,
		Example: `  abx files mkdir "$id" out
  abx files mkdir "$id" -p work/out /tmp/cache`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) >= 2 {
				return nil
			}
			return cmdutil.ArgsError(cmd, args, 2, []string{"ID", "PATH..."})
		},
	}
	cmd.Flags().BoolVarP(&opts.Parents, "parents", "p", false, "make missing parents; a directory that exists is fine")
	// The hint of a missing parent names -p, as mkdir users type it.
	return verb(opts, runF, runMkdir, cmd, cmdutil.CompleteSandboxFiles(f, 1), "files.mkdir", "path=PATH", "parents=-p")
}

// parse reads the target and every path after the ID.
func (opts *MkdirOptions) parse(cmd *cobra.Command, args []string) error {
	if err := opts.target.parse(cmd, args); err != nil {
		return err
	}
	opts.Paths = args[1:]
	return nil
}

func runMkdir(ctx context.Context, opts *MkdirOptions) error {
	made, err := opts.Sandboxes.MakeDir(ctx, opts.ID, opts.User, opts.Paths, opts.Parents)
	// Those made before the one that could not be are said, as mkdir
	// says each.
	for i, m := range made {
		if m.Existed {
			opts.Printer.Note("%s: already a directory", opts.Paths[i])
		} else {
			opts.Printer.Note("created %s", m.Path)
		}
	}
	if err != nil {
		return err
	}
	if len(made) == 1 {
		return printEntry(opts.Printer, made[0].Entry)
	}
	entries := make([]envd.Entry, len(made))
	for i, m := range made {
		entries[i] = m.Entry
	}
	return opts.Printer.Print(entries, nil, nil)
}

// printEntry prints what mkdir and mv made for programs (docs/json.md,
// files); people have the note, and -o name prints nothing.
func printEntry(p *output.Printer, e envd.Entry) error {
	return p.Print(e, nil, nil)
}
