// Package providers holds `abx provider`: the sandbox providers abx knows
// and what each of them can do.
package providers

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/provider"
)

// NewCmdProvider builds the `abx provider` group.
func NewCmdProvider(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "provider",
		Short: "List the sandbox providers abx knows and what each can do",
		Long: `List the sandbox providers built into abx, and show one: its settings (flags and
environment variables) and the capabilities of the abx family it supports or not.
'abx capabilities' is the short form for the selected provider.`,
		Args: cmdutil.ExactArgs(),
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdInfo(f, nil))
	return cmdutil.NoProvider(cmd)
}

// capabilityJSON is one capability of a provider, as JSON shows it.
type capabilityJSON struct {
	Name        provider.Capability `json:"name"`
	Supported   bool                `json:"supported"`
	Description string              `json:"description"`
}

// capabilitiesOf lists every capability of the family for d, in order.
func capabilitiesOf(d *provider.Descriptor) []capabilityJSON {
	out := make([]capabilityJSON, 0, len(provider.AllCapabilities))
	for _, c := range provider.AllCapabilities {
		out = append(out, capabilityJSON{Name: c.Name, Supported: d.Supports(c.Name), Description: c.Description})
	}
	return out
}

// yesNo is how tables show a flag.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
