package providers

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// ListOptions are the inputs of `abx provider list`.
type ListOptions struct {
	Printer  *output.Printer
	Registry *provider.Registry
	// Selected is the provider --provider or ABX_PROVIDER names, if any.
	Selected string
}

type providerJSON struct {
	Name         string                `json:"name"`
	Summary      string                `json:"summary"`
	Selected     bool                  `json:"selected"`
	Supported    int                   `json:"supported"`
	Capabilities []provider.Capability `json:"capabilities"`
	// Every provider abx has is built into the binary, so installed.
	Installed bool `json:"installed"`
	Builtin   bool `json:"builtin"`
}

// NewCmdList builds `abx provider list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Printer: f.Printer, Registry: f.Registry}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the providers built into abx",
		Long: `List the sandbox providers built into abx: their names (for --provider and
ABX_PROVIDER), what they serve, how many of the family's capabilities each supports, and
which one is selected. Each is installed, built in: abx installs no plugins.`,
		Example: `  abx provider list
  abx provider list -o json | jq -r '.[] | select(.selected) | .capabilities[]'`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Selected = f.ProviderName()
			return cmdutil.Run(cmd, opts, runF, runList)
		},
	}
	return cmdutil.NoProvider(cmd)
}

func runList(_ context.Context, opts *ListOptions) error {
	out := []providerJSON{}
	var names []string
	for _, d := range opts.Registry.All() {
		p := providerJSON{Name: d.Name, Summary: d.Summary, Selected: d.Name == opts.Selected, Capabilities: []provider.Capability{},
			Installed: true, Builtin: true}
		for _, c := range d.Manifest() {
			if c.Supported {
				p.Supported++
				p.Capabilities = append(p.Capabilities, c.Name)
			}
		}
		out = append(out, p)
		names = append(names, d.Name)
	}
	return opts.Printer.Print(out, names, func() error {
		// installed comes last: piped, the columns before it keep their places.
		t := opts.Printer.Table("name", "selected", "capabilities", "summary", "installed")
		for _, p := range out {
			t.Row(p.Name, yesNo(p.Selected), fmt.Sprintf("%d of %d", p.Supported, len(provider.AllCapabilities)), p.Summary, "built in")
		}
		return t.Render()
	})
}
