package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ContextsOptions are the inputs of `abx run-code contexts`.
type ContextsOptions struct {
	IO     *output.Streams
	Interp func(ctx context.Context, id string) (*codeinterp.Client, error)
	Format output.Format

	ID        string // the sandbox
	ContextID string
	Language  string
	Cwd       string
}

// newCmdContexts builds `abx run-code contexts` and its subcommands.
func newCmdContexts(f *Factory) *cobra.Command {
	opts := &ContextsOptions{IO: f.IO, Interp: f.InterpreterClient}
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
	target := func(args []string) error {
		opts.Format, opts.ID = f.Format, args[0]
		if len(args) > 1 {
			opts.ContextID = args[1]
			if err := checkIDs(opts.ContextID); err != nil {
				return err
			}
		}
		return checkIDs(opts.ID)
	}

	list := &cobra.Command{
		Use:     "list ID",
		Aliases: []string{"ls"},
		Short:   "List a sandbox's contexts",
		Example: `  abx run-code contexts list "$id"
  abx run-code contexts list "$id" -o json | jq -r '.[] | select(.language == "python") | .id'`,
		Args: exactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := target(args); err != nil {
				return err
			}
			return runContextsList(cmd.Context(), opts)
		},
	}
	create := &cobra.Command{
		Use:   "create ID [--language L] [--cwd DIR]",
		Short: "Start a new context and print its ID",
		Long: `Start a new context: an interpreter of its own for --language (python by default),
working in --cwd (default /home/user). Its ID, printed on stdout, is what
'abx run-code --context' and the other contexts commands take.`,
		Example: `  abx run-code contexts create "$id"
  abx run-code contexts create "$id" --language python --cwd /home/user/project`,
		Args: exactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := target(args); err != nil {
				return err
			}
			if cmd.Flags().Changed("language") {
				l, err := parseLanguage(opts.Language)
				if err != nil {
					return err
				}
				opts.Language = l
			}
			return runContextsCreate(cmd.Context(), opts)
		},
	}
	create.Flags().StringVarP(&opts.Language, "language", "l", "", "python (default), javascript (js), typescript (ts), r, java or bash")
	create.Flags().StringVar(&opts.Cwd, "cwd", "", "working directory of the context (default /home/user)")
	restart := &cobra.Command{
		Use:     "restart ID CONTEXT",
		Short:   "Restart a context's interpreter: its variables are lost",
		Example: `  abx run-code contexts restart "$id" "$ctx"`,
		Args:    exactArgs("ID", "CONTEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := target(args); err != nil {
				return err
			}
			return runContextsChange(cmd.Context(), opts, "restarted", (*codeinterp.Client).RestartContext)
		},
	}
	del := &cobra.Command{
		Use:     "delete ID CONTEXT",
		Aliases: []string{"rm"},
		Short:   "Stop a context for good",
		Example: `  abx run-code contexts delete "$id" "$ctx"`,
		Args:    exactArgs("ID", "CONTEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := target(args); err != nil {
				return err
			}
			return runContextsChange(cmd.Context(), opts, "deleted", (*codeinterp.Client).DeleteContext)
		},
	}
	for _, c := range []*cobra.Command{list, create, restart, del} {
		cmd.AddCommand(needs(c, provider.CodeInterpret))
	}
	return cmd
}

func runContextsList(ctx context.Context, opts *ContextsOptions) error {
	c, err := opts.Interp(ctx, opts.ID)
	if err != nil {
		return err
	}
	list, err := c.Contexts(ctx)
	if err != nil {
		return err
	}
	switch opts.Format {
	case output.JSON:
		return output.WriteJSON(opts.IO.Out, list)
	case output.Name:
		for _, x := range list {
			if _, err := fmt.Fprintln(opts.IO.Out, x.ID); err != nil {
				return err
			}
		}
		return nil
	}
	t := opts.IO.NewTable("ID", "LANGUAGE", "CWD")
	for _, x := range list {
		t.Row(x.ID, x.Language, x.Cwd)
	}
	return t.Render()
}

func runContextsCreate(ctx context.Context, opts *ContextsOptions) error {
	c, err := opts.Interp(ctx, opts.ID)
	if err != nil {
		return err
	}
	x, err := c.CreateContext(ctx, opts.Language, opts.Cwd)
	if err != nil {
		return err
	}
	if opts.Format == output.JSON {
		return output.WriteJSON(opts.IO.Out, x)
	}
	note(opts.IO, opts.Format, "context %s created (%s, %s)", x.ID, x.Language, x.Cwd)
	_, err = fmt.Fprintln(opts.IO.Out, x.ID)
	return err
}

// contextChange is the JSON of restart and delete.
type contextChange struct {
	ID     string `json:"id"`
	Action string `json:"action"`
}

func runContextsChange(ctx context.Context, opts *ContextsOptions, done string,
	change func(*codeinterp.Client, context.Context, string) error) error {
	c, err := opts.Interp(ctx, opts.ID)
	if err != nil {
		return err
	}
	if err := change(c, ctx, opts.ContextID); err != nil {
		return contextHint(err, opts.ID)
	}
	switch opts.Format {
	case output.JSON:
		return output.WriteJSON(opts.IO.Out, contextChange{ID: opts.ContextID, Action: done})
	case output.Name:
		_, err := fmt.Fprintln(opts.IO.Out, "context/"+opts.ContextID)
		return err
	}
	note(opts.IO, opts.Format, "context %s %s", opts.ContextID, done)
	return nil
}
