// Package meta holds the commands about abx itself and its settings:
// capabilities, config and version.
package meta

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

type capabilitiesJSON struct {
	Provider     string                      `json:"provider"`
	Capabilities []provider.CapabilityStatus `json:"capabilities"`
}

// CapabilitiesOptions are the inputs of `abx capabilities`.
type CapabilitiesOptions struct {
	Printer *output.Printer
	// Selected is the selected provider.
	Selected func() (*provider.Descriptor, error)
}

// capabilitiesNames are the names of `abx capabilities`, declared once: its command takes
// them, and its group's Verbs lists them.
var capabilitiesNames = cmdutil.Names{"capabilities"}

// NewCmdCapabilities builds `abx capabilities`: the capability manifest.
func NewCmdCapabilities(f *cmdutil.Factory, runF func(context.Context, *CapabilitiesOptions) error) *cobra.Command {
	opts := &CapabilitiesOptions{Printer: f.Printer, Selected: f.Selected}
	return &cobra.Command{
		Use:   capabilitiesNames.Use(""),
		Short: "Show what the selected provider can and cannot do",
		Long: `Show every capability of the abx family and whether the selected provider supports it.
A command that needs an unsupported capability fails with E8004 (exit 5) before any
request is sent.`,
		Example: `  abx capabilities
  abx capabilities -o json | jq -r '.capabilities[] | select(.supported) | .name'`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdutil.Run(cmd, opts, runF, runCapabilities)
		},
	}
}

func runCapabilities(_ context.Context, opts *CapabilitiesOptions) error {
	d, err := opts.Selected()
	if err != nil {
		return err
	}
	out := capabilitiesJSON{Provider: d.Name, Capabilities: d.Manifest()}
	var supported []string
	for _, c := range out.Capabilities {
		if c.Supported {
			supported = append(supported, string(c.Name))
		}
	}
	return opts.Printer.Print(out, supported, func() error {
		t := opts.Printer.Table("capability", "supported", "description")
		for _, c := range out.Capabilities {
			yes := "no"
			if c.Supported {
				yes = "yes"
			}
			t.Row(string(c.Name), yes, c.Description)
		}
		return t.Render()
	})
}
