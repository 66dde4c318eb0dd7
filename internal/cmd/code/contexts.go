package code

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
)

// NewCmdContexts builds `abx run-code contexts` and its subcommands.
func NewCmdContexts(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "contexts",
		Short: "Manage the code interpreter's contexts",
		Long: `A context is an interpreter with its own variables, language and working directory.
Each language has a default context, used by 'abx run-code' without --context.`,
		Example: `  ctx=$(abx run-code contexts create "$id" --cwd /home/user/project)
  abx run-code "$id" --context "$ctx" 'import os; os.getcwd()'
  abx run-code contexts list "$id"
  abx run-code contexts restart "$id" "$ctx"
  abx run-code contexts delete "$id" "$ctx"`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdContextsList(f, nil), NewCmdContextsCreate(f, nil),
		NewCmdContextsRestart(f, nil), NewCmdContextsDelete(f, nil))
	return cmd
}

// contextArgs reads `ID CONTEXT`: a sandbox ID (also as sandbox/ID) and a
// context ID, both refused before anything is sent if they cannot be one.
func contextArgs(args []string) (id, contextID string, err error) {
	if id, err = cmdutil.SandboxID(args[0]); err != nil {
		return "", "", err
	}
	if err = checkContextID(id, args[1]); err != nil {
		return "", "", err
	}
	return id, args[1], nil
}

// contextChange is the JSON of restart and delete (docs/json.md, run-code).
type contextChange struct {
	ID     string `json:"id"`
	Action string `json:"action"`
}

// changeContext restarts or deletes a context (change) and says so: a note
// for people, the change for programs, the bare context ID for -o name.
func changeContext(ctx context.Context, p *output.Printer, interp Interpreter, id, contextID, done string,
	change func(*codeinterp.Client, context.Context, string) error) error {
	c, err := interp(ctx, id)
	if err != nil {
		return err
	}
	if err := change(c, ctx, contextID); err != nil {
		return contextHint(err, id)
	}
	p.Note("context %s %s", contextID, done)
	return p.Print(contextChange{ID: contextID, Action: done}, []string{contextID}, nil)
}
