package code

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
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

// sandboxInterp is what every contexts command works on, and their options
// embed it: the code interpreter of one sandbox, and the printer that
// shows what it answers.
type sandboxInterp struct {
	Printer   *output.Printer
	Sandboxes *sandboxes.Service

	ID string // the sandbox
}

func newSandboxInterp(f *cmdutil.Factory) sandboxInterp {
	return sandboxInterp{Printer: f.Printer, Sandboxes: f.Sandboxes}
}

// parse reads the sandbox ID (also as sandbox/ID).
func (s *sandboxInterp) parse(args []string) (err error) {
	s.ID, err = cmdutil.SandboxID(args[0])
	return err
}
