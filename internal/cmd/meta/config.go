package cli

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

type settingJSON struct {
	Key    string `json:"key"`
	Env    string `json:"env"`
	Flag   string `json:"flag"`
	Value  string `json:"value"`
	Source string `json:"source"` // flag, env, file, default or unset
}

type problemJSON struct {
	Code    abxerr.Code `json:"code"`
	Message string      `json:"message"`
	Hint    string      `json:"hint,omitempty"`
}

type configJSON struct {
	Provider string        `json:"provider"`
	Settings []settingJSON `json:"settings"`
	Problems []problemJSON `json:"problems"`
}

// redacted stands for a secret that is set; the value itself is never shown.
const redacted = "(set, redacted)"

// NewCmdConfig builds `abx config`.
func NewCmdConfig(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Show the effective settings and where each came from",
		Long: `Show the provider's settings as abx would use them: the value, and whether it came
from a flag, an environment variable, a file or the default (flag > env > default).
The API key is never shown. Missing or invalid settings are listed with what to set;
abx config itself succeeds even when the configuration is incomplete.`,
		Example: `  abx config
  abx config -o json | jq '.problems'`,
		Args: exactArgs(),
		RunE: func(*cobra.Command, []string) error {
			return runConfig(f)
		},
	}
}

func runConfig(f *Factory) error {
	cfg, bound, err := bindSettings(f.Descriptor, f.flags, nil)
	out := configJSON{Provider: f.Descriptor.Name, Settings: []settingJSON{}, Problems: []problemJSON{}}
	for _, b := range bound {
		v := b.Value
		if b.Secret && v != "" {
			v = redacted
		}
		out.Settings = append(out.Settings, settingJSON{b.Key, b.Env, "--" + b.Flag, v, b.Source})
	}
	problems := []error{}
	if err != nil {
		problems = append(problems, err)
	} else {
		problems = cfg.Problems()
	}
	for _, p := range problems {
		e := abxerr.From(p)
		out.Problems = append(out.Problems, problemJSON{e.Code, e.Message, e.Hint})
	}

	if f.Format == output.JSON {
		return output.WriteJSON(f.IO.Out, out)
	}
	t := f.IO.NewTable("setting", "value", "source", "variable")
	for _, s := range out.Settings {
		t.Row(s.Key, dash(s.Value), s.Source, s.Env)
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, p := range problems {
		f.IO.PrintError(abxerr.From(p), false)
	}
	return nil
}
