package providers

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/meta"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// InstallOptions are the inputs of `abx provider install`.
type InstallOptions struct {
	Printer  *output.Printer
	Registry *provider.Registry
	// Version is abx's own: a built-in provider comes with the binary
	// ("": read from the build when the command runs).
	Version string

	Source        string // as given
	ID            string // the provider it names
	AllowUnpinned bool
	Yes           bool
}

type installJSON struct {
	Provider string `json:"provider"`
	Builtin  bool   `json:"builtin"`
	Version  string `json:"version"`
	Source   string `json:"source"`
}

// NewCmdInstall builds `abx provider install SOURCE`.
func NewCmdInstall(f *cmdutil.Factory, runF func(context.Context, *InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{Printer: f.Printer, Registry: f.Registry}
	cmd := &cobra.Command{
		Use:   "install SOURCE",
		Short: "Confirm that a provider is available (providers are built into abx)",
		Long: `Resolve a provider named as the provider catalog names it, and confirm that abx has
it. SOURCE is OWNER/REPO//ID, registry:ID or a bare ID. abx's providers are built into
the binary, so for one of them this sends nothing, writes nothing and says so; running it
again is the same. An ID abx does not have fails with E3001 (exit 3): abx installs no
plugins. A SOURCE of none of these forms (a URL, a path, '..') fails with exit 2.

--allow-unpinned and --yes are accepted so that the catalog's install line works as
written; a built-in provider has no version to pin and nothing to confirm.`,
		Example: `  abx provider install alibaba-agent-sandbox/awesome-providers//alicloud-container --allow-unpinned --yes
  abx provider install registry:alicloud-container
  abx provider install alicloud-container -o json`,
		Args:              cmdutil.ExactArgs("SOURCE"),
		ValidArgsFunction: completeProviderNames(f.Registry),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseSource(args[0])
			if err != nil {
				return err.WithHint("for example: %s alicloud-container", cmd.CommandPath())
			}
			opts.Source, opts.ID = args[0], id
			return cmdutil.Run(cmd, opts, runF, runInstall)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.AllowUnpinned, "allow-unpinned", false, "accepted for the provider catalog's install line; a built-in provider has no version to pin")
	fl.BoolVar(&opts.Yes, "yes", false, "accepted for the provider catalog's install line; a built-in provider has nothing to confirm")
	return cmdutil.NoProvider(cmd)
}

func runInstall(_ context.Context, opts *InstallOptions) error {
	if opts.Version == "" {
		opts.Version = meta.BuildInfo().Version
	}
	d, err := builtin(opts.Registry, opts.ID)
	if err != nil {
		return err
	}
	out := installJSON{Provider: d.Name, Builtin: true, Version: opts.Version, Source: opts.Source}
	return opts.Printer.Print(out, []string{d.Name}, func() error {
		return opts.Printer.Line(d.Name + " is built into abx " + opts.Version + "; nothing to install")
	})
}

// builtin finds the provider id names among those built into abx, which
// are all it has: any other is not found, whatever a catalog offers.
func builtin(r *provider.Registry, id string) (*provider.Descriptor, error) {
	if d, err := r.Lookup(id); err == nil {
		return d, nil
	}
	return nil, abxerr.New(abxerr.NotFound, "abx has no provider %q: its providers are built in (%s), and it installs no plugins",
		id, strings.Join(r.Names(), ", ")).
		WithHint("use one of those with --provider or ABX_PROVIDER; 'abx provider list' shows them")
}

// completeProviderNames offers the built-in providers for a SOURCE or ID.
func completeProviderNames(r *provider.Registry) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return r.Names(), cobra.ShellCompDirectiveNoFileComp
	}
}
