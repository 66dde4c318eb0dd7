package meta

import (
	"context"
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
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
	Profile  *profileJSON  `json:"profile"`
	Settings []settingJSON `json:"settings"`
	Problems []problemJSON `json:"problems"`
}

// profileJSON is the profile the settings were bound with.
type profileJSON struct {
	Name string `json:"name"`
	// SelectedBy is what chose it: flag (--profile), env (ABX_PROFILE) or
	// current (the config file's).
	SelectedBy string `json:"selectedBy"`
	Path       string `json:"path"`
}

// redacted stands for a secret that is set; the value itself is never shown.
const redacted = "(set, redacted)"

// shownValue is a setting's value as abx config shows it: a secret only as
// set, and a URL without the password its userinfo may hold.
func shownValue(b cmdutil.BoundSetting) string {
	if b.Secret && b.Value != "" {
		return redacted
	}
	if strings.Contains(b.Value, "@") {
		if u, err := url.Parse(b.Value); err == nil && u.User != nil {
			return u.Redacted()
		}
	}
	return b.Value
}

// selectedWords say what chose the profile.
var selectedWords = map[string]string{"flag": "--profile", "env": "ABX_PROFILE", "current": "the current one"}

// ConfigOptions are the inputs of `abx config`.
type ConfigOptions struct {
	Printer *output.Printer
	// Settings are the selected provider's, bound; stdin is left unread.
	Settings func() (*cmdutil.Settings, error)
	// Profile is the profile the run uses, nil for none.
	Profile func() (*cmdutil.Profile, error)
}

// configNames are the names of `abx config`, declared once: its command takes
// them, and its group's Verbs lists them.
var configNames = cmdutil.Names{"config"}

// NewCmdConfig builds `abx config`.
func NewCmdConfig(f *cmdutil.Factory, runF func(context.Context, *ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{Printer: f.Printer, Settings: f.Settings, Profile: f.Profile}
	cmd := &cobra.Command{
		Use:   configNames.Use(""),
		Short: "Show the effective settings and where each came from",
		Long: `Show the provider's settings as abx would use them: the value, and whether it came
from a flag, an environment variable, the selected profile or the default (flag > env >
profile > default), and where the API key came from (flag, env, file, or the profile's
store: keyring, file, emulator). The API key is never shown. Missing or invalid settings are listed with what to set;
abx config itself succeeds even when the configuration is incomplete, with no provider
selected at all too: that is then its one problem.`,
		Example: `  abx config
  abx config -o json | jq '.problems'`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdutil.Run(cmd, opts, runF, runConfig)
		},
	}
	// It selects the provider itself: with none, that is a problem it
	// lists, not a refusal.
	return cmdutil.TakesSettings(cmd, "")
}

func runConfig(_ context.Context, opts *ConfigOptions) error {
	st, err := opts.Settings()
	out := configJSON{Settings: []settingJSON{}, Problems: []problemJSON{}}
	problems := []error{}
	switch {
	case st == nil:
		// No provider to show the settings of (none selected, an unknown
		// one, a config file that cannot be read): that is the problem to
		// list, and abx config still succeeds.
		problems = append(problems, err)
	case err != nil:
		problems = append(problems, err)
	default:
		cfg, err := st.Config(nil)
		if err != nil {
			problems = append(problems, err)
		} else {
			problems = cfg.Problems()
		}
	}
	if st != nil {
		out.Provider = st.Descriptor.Name
		if p, perr := opts.Profile(); perr == nil && p != nil && st.Profile == p.Name {
			out.Profile = &profileJSON{Name: p.Name, SelectedBy: p.By, Path: p.Path}
		}
		for _, b := range st.Bound {
			out.Settings = append(out.Settings, settingJSON{b.Key, b.Env, "--" + b.Flag, shownValue(b), b.Source})
		}
	}
	keys := make([]string, len(out.Settings))
	for i, s := range out.Settings {
		keys[i] = s.Key
	}
	for _, p := range problems {
		e := abxerr.From(p)
		out.Problems = append(out.Problems, problemJSON{e.Code, e.Message, e.Hint})
	}
	return opts.Printer.Print(out, keys, func() error {
		if out.Profile != nil {
			opts.Printer.Note("Profile %s (%s) from %s", out.Profile.Name, selectedWords[out.Profile.SelectedBy], out.Profile.Path)
		}
		if st != nil {
			t := opts.Printer.Table("setting", "value", "source", "variable")
			for _, s := range out.Settings {
				source := s.Source
				if source == cmdutil.SourceProfile {
					source += " " + st.Profile
				}
				t.Row(s.Key, output.Dash(s.Value), source, s.Env)
			}
			if err := t.Render(); err != nil {
				return err
			}
		}
		for _, p := range problems {
			opts.Printer.Problem(abxerr.From(p))
		}
		return nil
	})
}
