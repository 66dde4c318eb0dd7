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
	Key   string `json:"key"`
	Env   string `json:"env"`
	Flag  string `json:"flag"`
	Value string `json:"value"`
	// Source is flag, env, file (--api-key-file), profile, default or
	// unset; for a key from the profile's store, the store: keyring,
	// keyfile or emulator.
	Source string `json:"source"`
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

// storeWords name a key's store in the table.
var storeWords = map[string]string{cmdutil.SourceKeyring: "keyring", cmdutil.SourceKeyFile: "key file", cmdutil.SourceEmulator: "emulator"}

// sourceWords say where a setting came from in the table: a profile's by
// its name, and a key from its store by the store too ("key file of
// profile prod", never the bare "file" of --api-key-file).
func sourceWords(b cmdutil.BoundSetting) string {
	switch {
	case b.Source == cmdutil.SourceProfile:
		return b.Source + " " + b.Profile
	case storeWords[b.Source] != "" && b.Profile != "":
		return storeWords[b.Source] + " of profile " + b.Profile
	}
	return b.Source
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
profile > default), and where the API key came from (flag, env, file for --api-key-file,
or the profile's store: keyring, key file, emulator). The API key is never shown. Missing or invalid settings are listed with what to set;
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
			for i, s := range out.Settings {
				t.Row(s.Key, output.Dash(s.Value), sourceWords(st.Bound[i]), s.Env)
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
