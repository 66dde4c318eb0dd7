package code

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
)

// ContextsListOptions are the inputs of `abx run-code contexts list`.
type ContextsListOptions struct {
	sandboxInterp
}

// NewCmdContextsList builds `abx run-code contexts list`.
func NewCmdContextsList(f *cmdutil.Factory, runF func(context.Context, *ContextsListOptions) error) *cobra.Command {
	opts := &ContextsListOptions{newSandboxInterp(f)}
	cmd := &cobra.Command{
		Use:     "list ID",
		Aliases: []string{"ls"},
		Short:   "List a sandbox's contexts",
		Example: `  abx run-code contexts list "$id"
  abx run-code contexts list "$id" -o json | jq -r '.[] | select(.language == "python") | .id'`,
		Args: cmdutil.ExactArgs("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.parse(args); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runContextsList)
		},
	}
	cmd.ValidArgsFunction = cmdutil.CompleteSandbox(f, nil)
	return cmdutil.Does(cmd, "code.contexts")
}

func runContextsList(ctx context.Context, opts *ContextsListOptions) error {
	list, err := opts.Sandboxes.Contexts(ctx, opts.ID)
	if err != nil {
		return err
	}
	ids := make([]string, len(list))
	for i, x := range list {
		ids[i] = x.ID
	}
	p := opts.Printer
	return p.Print(list, ids, func() error {
		t := p.Table("id", "language", "cwd")
		for _, x := range list {
			t.Row(x.ID, x.Language, x.Cwd)
		}
		return t.Render()
	})
}
