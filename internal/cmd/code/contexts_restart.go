package code

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ContextsRestartOptions are the inputs of `abx run-code contexts restart`.
type ContextsRestartOptions struct {
	Printer *output.Printer
	Interp  Interpreter

	ID        string // the sandbox
	ContextID string
}

// NewCmdContextsRestart builds `abx run-code contexts restart`.
func NewCmdContextsRestart(f *cmdutil.Factory, runF func(context.Context, *ContextsRestartOptions) error) *cobra.Command {
	opts := &ContextsRestartOptions{Printer: f.Printer, Interp: f.InterpreterClient}
	cmd := &cobra.Command{
		Use:     "restart ID CONTEXT",
		Short:   "Restart a context's interpreter: its variables are lost",
		Example: `  abx run-code contexts restart "$id" "$ctx"`,
		Args:    cmdutil.ExactArgs("ID", "CONTEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.ContextID, err = contextArgs(args); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runContextsRestart)
		},
	}
	return cmdutil.Needs(cmd, provider.CodeInterpret)
}

func runContextsRestart(ctx context.Context, opts *ContextsRestartOptions) error {
	return changeContext(ctx, opts.Printer, opts.Interp, opts.ID, opts.ContextID, "restarted",
		(*codeinterp.Client).RestartContext)
}
