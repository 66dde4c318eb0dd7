package files

import (
	"context"
	"path"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
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
	return verb(opts, runF, runMkdir, cmd, cmdutil.CompleteSandboxFiles(f, 1))
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
	c, err := opts.client(ctx)
	if err != nil {
		return err
	}
	made := []envd.Entry{}
	for _, p := range opts.Paths {
		e, existed, err := mkdir(ctx, c, p, opts.Parents)
		if err != nil {
			return err
		}
		if existed {
			opts.Printer.Note("%s: already a directory", p)
		} else {
			opts.Printer.Note("created %s", e.Path)
		}
		made = append(made, e)
	}
	if len(made) == 1 {
		return printEntry(opts.Printer, made[0])
	}
	return opts.Printer.Print(made, nil, nil)
}

// mkdir makes the directory p. envd's MakeDir makes parents, as mkdir -p,
// and refuses an existing directory, so abx checks the parent itself when
// it must not make it, and takes envd's refusal as fine when it may.
func mkdir(ctx context.Context, c *envd.Client, p string, parents bool) (e envd.Entry, existed bool, err error) {
	if !parents {
		if err := parentExists(ctx, c, p); err != nil {
			return e, false, err
		}
	}
	e, err = c.MakeDir(ctx, p)
	if err != nil && parents && envd.IsAlreadyExists(err) {
		e, err = c.Stat(ctx, p)
		return e, true, err
	}
	return e, false, err
}

// parentExists refuses p when its parent is not a directory there.
func parentExists(ctx context.Context, c *envd.Client, p string) error {
	parent := path.Dir(path.Clean(p))
	if parent == path.Clean(p) {
		return nil // "/" has none
	}
	st, err := c.Stat(ctx, parent)
	switch {
	case hasCode(err, abxerr.NotFound):
		return abxerr.New(abxerr.NotFound, "cannot create %s: %s does not exist", p, parent).
			WithHint("add -p to create the missing parents")
	case err != nil:
		return err
	case st.Type != "dir":
		return abxerr.New(abxerr.Rejected, "cannot create %s: %s is not a directory", p, parent)
	}
	return nil
}

// printEntry prints what mkdir and mv made for programs (docs/json.md,
// files); people have the note, and -o name prints nothing.
func printEntry(p *output.Printer, e envd.Entry) error {
	return p.Print(e, nil, nil)
}
