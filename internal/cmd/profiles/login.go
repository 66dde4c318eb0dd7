package profiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/keystore"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/profile"
	"github.com/abx-dev/abx/internal/provider"
)

// loginNames are the names of `abx login`, declared once.
var loginNames = cmdutil.Names{"login"}

// LoginOptions are the inputs of `abx login`.
type LoginOptions struct {
	IO      *output.Streams
	Printer *output.Printer
	Files   *Files
	// Factory gives the command line's flags, the registry and the HTTP
	// client the key is checked with.
	Factory *cmdutil.Factory

	WithKey         bool
	InsecureStore   bool
	NoInsecureStore bool
}

type loginJSON struct {
	Profile  string `json:"profile"`
	Provider string `json:"provider"`
	Key      string `json:"key"`
	Current  bool   `json:"current"`
	Path     string `json:"path"`
}

// NewCmdLogin builds `abx login`.
func NewCmdLogin(f *cmdutil.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{IO: f.IO, Printer: f.Printer, Factory: f}
	cmd := &cobra.Command{
		Use:   loginNames.Use("[--profile NAME] --domain DOMAIN [flags]"),
		Short: "Save a profile and its API key, checked against the cluster",
		Long: `Save a profile: the provider's settings given as flags (--domain, --protocol,
--base-url, --envd-port, the timeouts and retries) and its API key, so that every shell
reaches the cluster without exports. The profile is --profile NAME (or ABX_PROFILE), else
the current one, else "default"; logging in to one that exists keeps the settings not
given again. Variables are not saved: a profile says what its flags say.

The key is read from the terminal without echo, or from stdin with --with-key, or from
--api-key-file. It is checked with one authenticated call (a list of one sandbox)
before anything is saved: a refused key saves nothing (exit 4). It is kept in the OS
keyring; where no keyring answers (a headless server, CI) in a file of mode 0600 beside
the config file, after a warning, unless --no-insecure-store refuses that. The first
profile saved becomes the current one (docs/configuration.md).`,
		Example: `  abx login --domain agents.example.com
  abx login --profile staging --domain staging.example.com --protocol private
  pass show abx/prod | abx login --profile prod --domain agents.example.com --with-key`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.InsecureStore && opts.NoInsecureStore {
				return abxerr.New(abxerr.Usage, "--insecure-store and --no-insecure-store contradict each other").
					WithHint("give one of them")
			}
			opts.Files = filesOf(f)
			return cmdutil.Run(cmd, opts, runF, runLogin)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.WithKey, "with-key", false, "read the API key from stdin")
	fl.BoolVar(&opts.InsecureStore, "insecure-store", false, "keep the key in a file of mode 0600 beside the config file, even where a keyring answers")
	fl.BoolVar(&opts.NoInsecureStore, "no-insecure-store", false, "refuse to keep the key anywhere but the OS keyring")
	// Its settings are the flags alone: variables are not saved.
	return cmdutil.TakesSettings(cmd, "Provider flags (saved in the profile; their variables are not):")
}

func runLogin(ctx context.Context, opts *LoginOptions) error {
	f := opts.Factory
	file, err := opts.Files.Load()
	if err != nil {
		return err
	}
	name := named(f, file)
	if name == "" {
		name = "default"
	}
	if err := profile.CheckName(name); err != nil {
		return err
	}
	old := file.Profiles[name]
	d, err := loginProvider(f, old)
	if err != nil {
		return err
	}
	if old != nil && old.Emulator != "" {
		return abxerr.New(abxerr.InvalidInput, "profile %s is an emulator's, which 'abx emulator start' keeps", name).
			WithHint("log in to another profile (--profile NAME)")
	}
	p := &profile.Profile{Provider: d.Name, Settings: given(f.Flags, d, old)}
	exported := exportedKey(f, d)
	if exported != "" {
		// As gh auth login says of GH_TOKEN: the variable wins over what is
		// saved, wherever it is set (flag > env > profile).
		opts.Printer.Warn("warning: %s is set: where it is, commands use it, not the key saved in profile %s (unset it to use the profile's)", exported, name)
	}
	key, err := opts.key(ctx, f, d, p, name, exported)
	if err != nil {
		return err
	}
	f.IO.Secrets.Add(key)
	if err := check(ctx, f, d, p, name, key); err != nil {
		return err
	}
	if p.Key, err = opts.storeKey(name, key, old); err != nil {
		return err
	}
	var current bool
	err = opts.Files.Update(func(file *profile.File) error {
		file.Profiles[name] = p
		if file.Current == "" {
			file.Current = name
		}
		current = file.Current == name
		return nil
	})
	if err != nil {
		return err
	}
	out := loginJSON{Profile: name, Provider: d.Name, Key: p.Key, Current: current, Path: opts.Files.Path}
	return opts.Printer.Print(out, []string{name}, func() error {
		what := "saved"
		if current {
			what = "saved, current"
		}
		return opts.Printer.Line(fmt.Sprintf("Logged in: profile %s (%s; key in the %s) in %s", name, what, keystore.StoreName(p.Key), opts.Files.Path))
	})
}

// loginProvider is the provider of the profile: --provider or
// ABX_PROVIDER, else the profile's own, else the one abx has.
func loginProvider(f *cmdutil.Factory, old *profile.Profile) (*provider.Descriptor, error) {
	name := ""
	if fl := f.Flags.Lookup("provider"); fl != nil && fl.Changed {
		name = fl.Value.String()
	} else if n := f.Getenv("ABX_PROVIDER"); n != "" {
		name = n
	} else if old != nil {
		name = old.Provider
	} else if all := f.Registry.Names(); len(all) == 1 {
		name = all[0]
	}
	return f.Registry.Lookup(name)
}

// given are the profile's settings: those the command line gives, over
// those the profile had.
func given(flags *pflag.FlagSet, d *provider.Descriptor, old *profile.Profile) map[string]string {
	out := map[string]string{}
	if old != nil && old.Provider == d.Name {
		for k, v := range old.Settings {
			out[k] = v
		}
	}
	for _, s := range d.Settings {
		if s.Secret || s.FileOf != "" {
			continue
		}
		if fl := flags.Lookup(s.Flag); fl != nil && fl.Changed {
			if v := fl.Value.String(); v != "" {
				out[s.Key] = v
			} else {
				delete(out, s.Key)
			}
		}
	}
	return out
}

// key is the key to log in with: --api-key or --api-key-file (read as a
// run reads them), --with-key from stdin, or typed on the terminal.
func (opts *LoginOptions) key(ctx context.Context, f *cmdutil.Factory, d *provider.Descriptor, p *profile.Profile, name, exported string) (string, error) {
	for _, s := range d.Settings {
		fl := f.Flags.Lookup(s.Flag)
		if (!s.Secret && s.FileOf == "") || fl == nil || !fl.Changed {
			continue
		}
		if opts.WithKey {
			return "", abxerr.New(abxerr.Usage, "--with-key and --%s both give the key", s.Flag).WithHint("give one of them")
		}
		st, err := cmdutil.Bind(d, f.Flags, noEnv, &cmdutil.Layer{Profile: name, Values: p.Settings})
		if err != nil {
			return "", err
		}
		if _, err := st.Config(f.IO.In); err != nil {
			return "", err
		}
		for _, b := range st.Bound {
			if b.Secret {
				return strings.TrimSpace(b.Value), nil
			}
		}
	}
	if opts.WithKey {
		data, err := io.ReadAll(io.LimitReader(f.IO.In, 64<<10))
		if err != nil {
			return "", abxerr.New(abxerr.InvalidInput, "cannot read the key from stdin: %v", err)
		}
		key := strings.TrimSpace(string(data))
		if key == "" {
			return "", abxerr.New(abxerr.MissingConfig, "--with-key reads the API key from stdin, and stdin held nothing; nothing was saved").
				WithHint("pipe the key in (pass show abx | abx login --with-key …), or leave --with-key out to type it on a terminal")
		}
		return key, nil
	}
	in, ok := f.IO.In.(*os.File)
	if !f.IO.StdinTTY || !ok {
		e := abxerr.New(abxerr.MissingConfig, "no API key given, and stdin is not a terminal to type it on")
		if exported != "" {
			// Variables are not saved; the one set may be what was meant.
			return "", e.WithHint("login saves no variable; to save %s's key, run: printf %%s \"$%s\" | abx login --with-key …", exported, exported)
		}
		return "", e.WithHint("pipe it in with --with-key, or give --api-key-file PATH")
	}
	key, err := readHidden(ctx, in, f.IO.ErrOut, fmt.Sprintf("API key for profile %s: ", name))
	if err != nil {
		return "", err
	}
	if key = strings.TrimSpace(key); key == "" {
		return "", abxerr.New(abxerr.MissingConfig, "no API key was typed; nothing was saved").
			WithHint("run 'abx login' again and type or paste the key at the prompt, or pipe it in with --with-key")
	}
	return key, nil
}

func noEnv(string) string { return "" }

// exportedKey is the variable that gives the provider's key (or its file)
// in this environment, "" for none: login saves no variable, and a run
// where it is set uses it, not the key saved.
func exportedKey(f *cmdutil.Factory, d *provider.Descriptor) string {
	for _, s := range d.Settings {
		if (s.Secret || s.FileOf != "") && f.Getenv(s.Env) != "" {
			return s.Env
		}
	}
	return ""
}

// check opens the provider with the profile's settings and the key, as a
// run on the profile would, and makes one authenticated call. Nothing is
// saved unless it answers.
func check(ctx context.Context, f *cmdutil.Factory, d *provider.Descriptor, p *profile.Profile, name, key string) error {
	layer := &cmdutil.Layer{Profile: name, Values: p.Settings,
		Key: func() (string, string, error) { return key, "login", nil }}
	// Only the settings saved: a flag given as the key is not bound again.
	st, err := cmdutil.Bind(d, pflag.NewFlagSet("login", pflag.ContinueOnError), noEnv, layer)
	if err != nil {
		return err
	}
	cfg, err := st.Config(nil)
	if err != nil {
		return err
	}
	if problems := cfg.Problems(); len(problems) > 0 {
		e := abxerr.From(problems[0])
		return abxerr.New(e.Code, "%s; nothing was saved", e.Message).
			WithHint("give it to 'abx login' as a flag (abx login --help lists them)")
	}
	prov, err := d.Open(cfg, provider.Deps{HTTP: f.HTTPClient(), Warn: io.Discard})
	if err != nil {
		return err
	}
	if _, err := prov.List(ctx, provider.ListOptions{Limit: 1}); err != nil {
		e := *abxerr.From(err)
		e.Message += "; nothing was saved"
		if e.Code == abxerr.Unauthorized {
			e.Hint = "check the key you gave: the server refused it"
		}
		return &e
	}
	return nil
}

// storeKey keeps the key: in the keyring, else (where none answers, and
// the user did not refuse it) in the file store after a warning. A key
// the profile kept in the other store before is removed from there.
func (opts *LoginOptions) storeKey(name, key string, old *profile.Profile) (string, error) {
	where := profile.KeyFile
	if !opts.InsecureStore {
		err := opts.Files.Keys.Keyring().Set(name, key)
		if err == nil {
			where = profile.KeyKeyring
		} else if !errors.Is(err, keystore.ErrUnavailable) {
			err = fmt.Errorf("%w: %w", keystore.ErrUnavailable, err)
		}
		if err != nil {
			if opts.NoInsecureStore {
				return "", abxerr.New(abxerr.MissingConfig, "cannot keep the key in the keyring: %v; nothing was saved", err).
					WithHint("unlock or start a keyring (Secret Service on Linux), or drop --no-insecure-store to keep it in a file of mode 0600")
			}
			opts.Printer.Warn("warning: %v; the key is kept in %s (mode 0600) instead", err, opts.Files.Keys.File().Path(name))
		}
	}
	if where == profile.KeyFile {
		if err := opts.Files.Keys.File().Set(name, key); err != nil {
			return "", abxerr.New(abxerr.InvalidConfig, "cannot keep the key in %s: %v; nothing was saved", opts.Files.Keys.File().Path(name), err)
		}
	}
	if old != nil && old.Key != "" && old.Key != where {
		if s := opts.Files.Keys.Store(old.Key); s != nil {
			_ = s.Delete(name)
		}
	}
	return where, nil
}
