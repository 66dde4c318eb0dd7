package providers

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// InfoOptions are the inputs of `abx provider info`.
type InfoOptions struct {
	Printer  *output.Printer
	Registry *provider.Registry
	Name     string
}

type settingJSON struct {
	Flag    string `json:"flag"`
	Env     string `json:"env"`
	Default string `json:"default,omitempty"`
	Secret  bool   `json:"secret"`
	Usage   string `json:"usage"`
}

type infoJSON struct {
	Name         string                      `json:"name"`
	Summary      string                      `json:"summary"`
	Settings     []settingJSON               `json:"settings"`
	Capabilities []provider.CapabilityStatus `json:"capabilities"`
}

// NewCmdInfo builds `abx provider info NAME`.
func NewCmdInfo(f *cmdutil.Factory, runF func(context.Context, *InfoOptions) error) *cobra.Command {
	opts := &InfoOptions{Printer: f.Printer, Registry: f.Registry}
	cmd := &cobra.Command{
		Use:   "info NAME",
		Short: "Show a provider's settings and capabilities",
		Long: `Show one provider built into abx: what it serves, its settings (each a flag and an
environment variable, with its default; secrets are marked, never shown), and every
capability of the abx family with whether it supports it. A command that needs an
unsupported capability fails with E8004 (exit 5) before any request is sent.`,
		Example: `  abx provider info alicloud-container
  abx provider info alicloud-container -o json | jq -r '.settings[].env'`,
		Args: cmdutil.ExactArgs("NAME"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return opts.Registry.Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if _, err := opts.Registry.Lookup(opts.Name); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runInfo)
		},
	}
	return cmdutil.NoProvider(cmd)
}

func runInfo(_ context.Context, opts *InfoOptions) error {
	d, err := opts.Registry.Lookup(opts.Name)
	if err != nil {
		return err
	}
	out := infoJSON{Name: d.Name, Summary: d.Summary, Settings: []settingJSON{}, Capabilities: d.Manifest()}
	for _, s := range d.Settings {
		out.Settings = append(out.Settings, settingJSON{Flag: "--" + s.Flag, Env: s.Env, Default: s.Default, Secret: s.Secret, Usage: s.Usage})
	}
	var supported []string
	for _, c := range out.Capabilities {
		if c.Supported {
			supported = append(supported, string(c.Name))
		}
	}
	return opts.Printer.Print(out, supported, func() error {
		w := opts.Printer.Out()
		if _, err := w.Write([]byte(d.Name + ": " + d.Summary + "\n\nSettings\n")); err != nil {
			return err
		}
		t := opts.Printer.Table("flag", "environment", "default", "usage")
		for _, s := range out.Settings {
			def := s.Default
			if s.Secret {
				def = "(secret)"
			}
			t.Row(s.Flag, s.Env, output.Dash(def), s.Usage)
		}
		if err := t.Render(); err != nil {
			return err
		}
		if _, err := w.Write([]byte("\nCapabilities\n")); err != nil {
			return err
		}
		c := opts.Printer.Table("capability", "supported", "description")
		for _, x := range out.Capabilities {
			c.Row(string(x.Name), yesNo(x.Supported), x.Description)
		}
		return c.Render()
	})
}
