package code

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ContextsDeleteOptions are the inputs of `abx run-code contexts delete`.
type ContextsDeleteOptions struct {
	Printer *output.Printer
	Interp  Interpreter

	ID        string // the sandbox
	ContextID string
}

// NewCmdContextsDelete builds `abx run-code contexts delete`.
func NewCmdContextsDelete(f *cmdutil.Factory, runF func(context.Context, *ContextsDeleteOptions) error) *cobra.Command {
	opts := &ContextsDeleteOptions{Printer: f.Printer, Interp: f.InterpreterClient}
	cmd := &cobra.Command{
		Use:     "delete ID CONTEXT",
		Aliases: []string{"rm"},
		Short:   "Stop a context for good",
		Example: `  abx run-code contexts delete "$id" "$ctx"`,
		Args:    cmdutil.ExactArgs("ID", "CONTEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.ID, opts.ContextID, err = contextArgs(args); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runContextsDelete)
		},
	}
	return cmdutil.Needs(cmd, provider.CodeInterpret)
}

func runContextsDelete(ctx context.Context, opts *ContextsDeleteOptions) error {
	return changeContext(ctx, opts.Printer, opts.Interp, opts.ID, opts.ContextID, "deleted",
		(*codeinterp.Client).DeleteContext)
}
