package code

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// ContextsChangeOptions are the inputs of the contexts commands that change
// one context, restart and delete: `ID CONTEXT`.
type ContextsChangeOptions struct {
	sandboxInterp
	ContextID string
}

type (
	// ContextsRestartOptions are the inputs of `abx run-code contexts restart`.
	ContextsRestartOptions = ContextsChangeOptions
	// ContextsDeleteOptions are the inputs of `abx run-code contexts delete`.
	ContextsDeleteOptions = ContextsChangeOptions
)

// newCmdContextsChange completes restart or delete, which differ only in
// their help and in what run asks of the code interpreter: both take
// `ID CONTEXT`.
func newCmdContextsChange(f *cmdutil.Factory, runF, run func(context.Context, *ContextsChangeOptions) error, cmd *cobra.Command) *cobra.Command {
	opts := &ContextsChangeOptions{sandboxInterp: newSandboxInterp(f)}
	cmd.Args = cmdutil.ExactArgs("ID", "CONTEXT")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := opts.parse(args); err != nil {
			return err
		}
		return cmdutil.Run(cmd, opts, runF, run)
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmd
}

// parse reads `ID CONTEXT`: a sandbox ID (also as sandbox/ID) and a context
// ID, which the operation checks.
func (opts *ContextsChangeOptions) parse(args []string) error {
	if err := opts.sandboxInterp.parse(args); err != nil {
		return err
	}
	opts.ContextID = args[1]
	return nil
}

// contextChange is the JSON of restart and delete (docs/json.md, run-code).
type contextChange struct {
	ID     string `json:"id"`
	Action string `json:"action"`
}

// done says that the context was restarted or deleted (done): a note for
// people, the change for programs, the bare context ID for -o name.
func (opts *ContextsChangeOptions) done(done string) error {
	p := opts.Printer
	p.Note("context %s %s", opts.ContextID, done)
	return p.Print(contextChange{ID: opts.ContextID, Action: done}, []string{opts.ContextID}, nil)
}

// NewCmdContextsRestart builds `abx run-code contexts restart`.
func NewCmdContextsRestart(f *cmdutil.Factory, runF func(context.Context, *ContextsRestartOptions) error) *cobra.Command {
	return cmdutil.Does(newCmdContextsChange(f, runF, runContextsRestart, &cobra.Command{
		Use:     "restart ID CONTEXT",
		Short:   "Restart a context's interpreter: its variables are lost",
		Example: `  abx run-code contexts restart "$id" "$ctx"`,
	}), "code.context.restart", "context=context ID")
}

func runContextsRestart(ctx context.Context, opts *ContextsRestartOptions) error {
	if err := opts.Sandboxes.RestartContext(ctx, opts.ID, opts.ContextID); err != nil {
		return err
	}
	return opts.done("restarted")
}

// NewCmdContextsDelete builds `abx run-code contexts delete`.
func NewCmdContextsDelete(f *cmdutil.Factory, runF func(context.Context, *ContextsDeleteOptions) error) *cobra.Command {
	return cmdutil.Does(newCmdContextsChange(f, runF, runContextsDelete, &cobra.Command{
		Use:     "delete ID CONTEXT",
		Aliases: []string{"rm"},
		Short:   "Stop a context for good",
		Example: `  abx run-code contexts delete "$id" "$ctx"`,
	}), "code.context.delete", "context=context ID")
}

func runContextsDelete(ctx context.Context, opts *ContextsDeleteOptions) error {
	if err := opts.Sandboxes.DeleteContext(ctx, opts.ID, opts.ContextID); err != nil {
		return err
	}
	return opts.done("deleted")
}
