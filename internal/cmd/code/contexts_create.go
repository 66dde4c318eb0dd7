package code

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ContextsCreateOptions are the inputs of `abx run-code contexts create`.
type ContextsCreateOptions struct {
	sandboxInterp
	Language string // "" for the server's default, python
	Cwd      string // "" for the server's default, /home/user
}

// NewCmdContextsCreate builds `abx run-code contexts create`.
func NewCmdContextsCreate(f *cmdutil.Factory, runF func(context.Context, *ContextsCreateOptions) error) *cobra.Command {
	opts := &ContextsCreateOptions{sandboxInterp: newSandboxInterp(f)}
	cmd := &cobra.Command{
		Use:   "create ID [--language L] [--cwd DIR]",
		Short: "Start a new context and print its ID",
		Long: `Start a new context: an interpreter of its own for --language (python by default),
working in --cwd (default /home/user). Its ID, printed on stdout, is what
'abx run-code --context' and the other contexts commands take.`,
		Example: `  abx run-code contexts create "$id"
  abx run-code contexts create "$id" --language python --cwd /home/user/project`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.parse(args); err != nil {
				return err
			}
			if err := given(cmd, "language", opts.Language, "for python"); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runContextsCreate)
		},
	}
	cmd.Flags().StringVarP(&opts.Language, "language", "l", "", "python (default), javascript (js), typescript (ts), r, java or bash")
	cmd.Flags().StringVar(&opts.Cwd, "cwd", "", "working directory of the context (default /home/user)")
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	cmdutil.CompleteFlag(cmd, "language", cmdutil.Choices(sandboxes.Languages()...))
	return cmdutil.Does(cmd, "code.context.create")
}

func runContextsCreate(ctx context.Context, opts *ContextsCreateOptions) error {
	x, err := opts.Sandboxes.CreateContext(ctx, opts.ID, opts.Language, opts.Cwd)
	if err != nil {
		return err
	}
	p := opts.Printer
	// The ID alone on stdout, so that ctx=$(abx run-code contexts create …)
	// works; the rest is a note for people.
	return p.Print(x, []string{x.ID}, func() error {
		p.Note("context %s created (%s, %s)", x.ID, x.Language, x.Cwd)
		return p.Line(x.ID)
	})
}
