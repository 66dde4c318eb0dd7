package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

type capabilityJSON struct {
	Name        provider.Capability `json:"name"`
	Supported   bool                `json:"supported"`
	Description string              `json:"description"`
}

type capabilitiesJSON struct {
	Provider     string           `json:"provider"`
	Capabilities []capabilityJSON `json:"capabilities"`
}

// NewCmdCapabilities builds `abx capabilities`: the capability manifest.
func NewCmdCapabilities(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "capabilities",
		Short: "Show what the selected provider can and cannot do",
		Long: `Show every capability of the abx family and whether the selected provider supports it.
A command that needs an unsupported capability fails with E8004 (exit 5) before any
request is sent.`,
		Example: `  abx capabilities
  abx capabilities -o json | jq -r '.capabilities[] | select(.supported) | .name'`,
		Args: exactArgs(),
		RunE: func(_ *cobra.Command, _ []string) error {
			return printCapabilities(f.IO, f.Format, f.Descriptor)
		},
	}
}

func printCapabilities(io *output.Streams, format output.Format, d *provider.Descriptor) error {
	out := capabilitiesJSON{Provider: d.Name, Capabilities: []capabilityJSON{}}
	for _, c := range provider.AllCapabilities {
		out.Capabilities = append(out.Capabilities, capabilityJSON{c.Name, d.Supports(c.Name), c.Description})
	}
	switch format {
	case output.JSON:
		return output.WriteJSON(io.Out, out)
	case output.Name:
		for _, c := range out.Capabilities {
			if c.Supported {
				if _, err := fmt.Fprintln(io.Out, "capability/"+string(c.Name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	t := io.NewTable("capability", "supported", "description")
	for _, c := range out.Capabilities {
		yes := "no"
		if c.Supported {
			yes = "yes"
		}
		t.Row(string(c.Name), yes, c.Description)
	}
	return t.Render()
}
