package providers

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/provider"
)

// UninstallOptions are the inputs of `abx provider uninstall`.
type UninstallOptions struct {
	Registry *provider.Registry
	ID       string // the provider the argument names
}

// NewCmdUninstall builds `abx provider uninstall ID`.
func NewCmdUninstall(f *cmdutil.Factory, runF func(context.Context, *UninstallOptions) error) *cobra.Command {
	opts := &UninstallOptions{Registry: f.Registry}
	cmd := &cobra.Command{
		Use:   "uninstall ID",
		Short: "Refuse to remove a provider: they are built into abx",
		Long: `The provider catalog's counterpart of install. abx's providers are built into the
binary and cannot be removed, so for one of them this changes nothing and fails with
E1002 (exit 2); to stop using it, select no provider (unset ABX_PROVIDER, drop
--provider). An ID abx does not have fails with E3001 (exit 3). ID may also be given
as registry:ID or OWNER/REPO//ID.`,
		Example:           `  abx provider uninstall alicloud-container`,
		Args:              cmdutil.ExactArgs("ID"),
		ValidArgsFunction: completeProviderNames(f.Registry),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSource(args[0])
			if err != nil {
				return err.WithHint("for example: %s alicloud-container", cmd.CommandPath())
			}
			opts.ID = id
			return cmdutil.Run(cmd, opts, runF, runUninstall)
		},
	}
	return cmdutil.NoProvider(cmd)
}

func runUninstall(_ context.Context, opts *UninstallOptions) error {
	d, err := builtin(opts.Registry, opts.ID)
	if err != nil {
		return err
	}
	return abxerr.New(abxerr.InvalidInput, "%s is built into abx and cannot be uninstalled", d.Name).
		WithHint("to stop using it, unset ABX_PROVIDER and drop --provider (nothing was changed)")
}
