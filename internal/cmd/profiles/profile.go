package profiles

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/keystore"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/profile"
)

// profileNames are the names of `abx profile`, declared once.
var profileNames = cmdutil.Names{"profile"}

// NewCmdProfile builds the `abx profile` group.
func NewCmdProfile(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   profileNames.Use(""),
		Short: "List, show, switch and delete the profiles of abx's config file",
		Long: `Profiles are named ways to reach a cluster, kept in abx's config file
(~/.config/abx/config.yaml, or ABX_CONFIG): a provider, its settings, and where its key
is kept. 'abx login' makes one; --profile NAME or ABX_PROFILE picks one for a command,
else the current one is used. Flags and variables still win over a profile's values
(docs/configuration.md).`,
		Args: cmdutil.ExactArgs(),
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdUse(f, nil), NewCmdShow(f, nil), NewCmdDelete(f, nil))
	return cmdutil.NoProvider(cmd)
}

// profileJSON is a profile as the commands print it; never its key.
type profileJSON struct {
	Name     string            `json:"name"`
	Current  bool              `json:"current"`
	Provider string            `json:"provider"`
	Settings map[string]string `json:"settings"`
	// Key is where its key is kept: keyring, file, emulator, or "" for
	// nowhere.
	Key string `json:"key"`
	// KeyPath is the file the key is kept in, for a key kept in a file.
	KeyPath  string `json:"keyPath,omitempty"`
	Emulator string `json:"emulator,omitempty"`
}

func toJSON(file *profile.File, name string, keys keystore.Keys) profileJSON {
	p := file.Profiles[name]
	out := profileJSON{Name: name, Current: file.Current == name, Provider: p.Provider, Settings: map[string]string{},
		Key: p.Key, Emulator: p.Emulator}
	if p.Key == profile.KeyFile {
		out.KeyPath = keys.File().Path(name)
	}
	for k, v := range p.Settings {
		out.Settings[k] = v
	}
	if p.Emulator != "" {
		out.Key = "emulator"
	}
	return out
}

// where is what a profile reaches, in a word: its base URL, else its
// domain, else its emulator.
func where(p profileJSON) string {
	switch {
	case p.Emulator != "":
		return "emulator at " + p.Emulator
	case p.Settings["base_url"] != "":
		return p.Settings["base_url"]
	}
	return p.Settings["domain"]
}

// ListOptions are the inputs of `abx profile list`.
type ListOptions struct {
	Printer *output.Printer
	Files   *Files
}

// NewCmdList builds `abx profile list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{Printer: f.Printer}
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the profiles, the current one marked",
		Example: `  abx profile list
  abx profile list -o json | jq -r '.[] | select(.current) | .name'`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Files = filesOf(f)
			return cmdutil.Run(cmd, opts, runF, runList)
		},
	}
}

func runList(_ context.Context, opts *ListOptions) error {
	file, err := opts.Files.Load()
	if err != nil {
		return err
	}
	names := file.Names()
	out := make([]profileJSON, 0, len(names))
	for _, n := range names {
		out = append(out, toJSON(file, n, opts.Files.Keys))
	}
	return opts.Printer.Print(out, names, func() error {
		if len(out) == 0 {
			opts.Printer.Note("No profiles in %s: 'abx login' makes one", opts.Files.Path)
			return nil
		}
		t := opts.Printer.Table("current", "name", "provider", "reaches", "key")
		for _, p := range out {
			mark := ""
			if p.Current {
				mark = "*"
			}
			t.Row(mark, p.Name, p.Provider, output.Dash(where(p)), output.Dash(p.Key))
		}
		return t.Render()
	})
}

// UseOptions are the inputs of `abx profile use`.
type UseOptions struct {
	Printer *output.Printer
	Files   *Files
	// Name is the profile to make current; "" with None.
	Name string
	// None makes no profile current.
	None bool
}

// NewCmdUse builds `abx profile use`.
func NewCmdUse(f *cmdutil.Factory, runF func(context.Context, *UseOptions) error) *cobra.Command {
	opts := &UseOptions{Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   "use {NAME | --none}",
		Short: "Make a profile the current one, or none",
		Long: `Make a profile the current one: the one a command uses when neither --profile nor
ABX_PROFILE names one. --none makes no profile current (as 'kubectl config unset
current-context' does): commands then use flags and variables alone, and the profiles
stay.`,
		Example: "  abx profile use staging\n  abx profile use --none",
		Args:    cmdutil.RangeArgs(0, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.None && len(args) > 0:
				return abxerr.New(abxerr.Usage, "--none and a NAME contradict each other").
					WithHint("give one of them")
			case !opts.None && len(args) == 0:
				return abxerr.New(abxerr.Usage, "abx profile use needs NAME, or --none").
					WithHint("'abx profile list' shows the profiles; --none makes none current")
			case !opts.None && args[0] == "":
				// Not taken for --none: an unset variable is no choice.
				return abxerr.New(abxerr.InvalidInput, "the profile's NAME is empty").
					WithHint("to make no profile current, run 'abx profile use --none'")
			case !opts.None:
				opts.Name = args[0]
			}
			opts.Files = filesOf(f)
			return cmdutil.Run(cmd, opts, runF, runUse)
		},
		ValidArgsFunction: completeNames(f),
	}
	cmd.Flags().BoolVar(&opts.None, "none", false, "make no profile current")
	return cmd
}

func runUse(_ context.Context, opts *UseOptions) error {
	was := ""
	err := opts.Files.Update(func(file *profile.File) error {
		if opts.Name != "" && file.Profiles[opts.Name] == nil {
			return notFound(opts.Name, opts.Files.Path)
		}
		was, file.Current = file.Current, opts.Name
		return nil
	})
	switch {
	case err != nil:
		return err
	case opts.Name != "":
		opts.Printer.Note("Current profile: %s", opts.Name)
	case was != "":
		opts.Printer.Note("No profile is current now (it was %s)", was)
	default:
		opts.Printer.Note("No profile is current")
	}
	return nil
}

// ShowOptions are the inputs of `abx profile show`.
type ShowOptions struct {
	Printer *output.Printer
	Files   *Files
	// Name is the profile asked for, "" for the one the run would use.
	Name  string
	Named func(*profile.File) string
}

// NewCmdShow builds `abx profile show`.
func NewCmdShow(f *cmdutil.Factory, runF func(context.Context, *ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{Printer: f.Printer, Named: func(file *profile.File) string { return named(f, file) }}
	return &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a profile's settings and where its key is kept",
		Long: `Show a profile (NAME, else --profile, ABX_PROFILE or the current one): its provider,
its settings and where its key is kept: keyring, or file and the file's path. The key
itself is never shown.`,
		Example: "  abx profile show\n  abx profile show staging -o json",
		Args:    cmdutil.RangeArgs(0, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = filesOf(f)
			if len(args) == 1 {
				opts.Name = args[0]
			}
			return cmdutil.Run(cmd, opts, runF, runShow)
		},
		ValidArgsFunction: completeNames(f),
	}
}

func runShow(_ context.Context, opts *ShowOptions) error {
	file, err := opts.Files.Load()
	if err != nil {
		return err
	}
	name := opts.Name
	if name == "" {
		name = opts.Named(file)
	}
	if name == "" {
		return notFound("(current)", opts.Files.Path)
	}
	if file.Profiles[name] == nil {
		return notFound(name, opts.Files.Path)
	}
	out := toJSON(file, name, opts.Files.Keys)
	return opts.Printer.Print(out, []string{name}, func() error {
		t := opts.Printer.Table("setting", "value")
		t.Row("name", name)
		t.Row("current", fmt.Sprint(out.Current))
		t.Row("provider", out.Provider)
		for _, k := range slices.Sorted(maps.Keys(out.Settings)) {
			t.Row(k, out.Settings[k])
		}
		if out.Emulator != "" {
			t.Row("emulator", out.Emulator)
		}
		key := output.Dash(out.Key)
		if out.KeyPath != "" {
			key += " " + out.KeyPath
		}
		t.Row("key", key)
		return t.Render()
	})
}

// DeleteOptions are the inputs of `abx profile delete`.
type DeleteOptions struct {
	Printer *output.Printer
	Files   *Files
	Name    string
}

// NewCmdDelete builds `abx profile delete`.
func NewCmdDelete(f *cmdutil.Factory, runF func(context.Context, *DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{Printer: f.Printer}
	return &cobra.Command{
		Use:     "delete NAME",
		Aliases: []string{"rm"},
		Short:   "Delete a profile and its stored key",
		Long: `Delete a profile from the config file and its key from the keyring or key file. When
it was the current one, no profile is current afterwards.`,
		Example: "  abx profile delete staging",
		Args:    cmdutil.ExactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files, opts.Name = filesOf(f), args[0]
			return cmdutil.Run(cmd, opts, runF, runDelete)
		},
		ValidArgsFunction: completeNames(f),
	}
}

func runDelete(_ context.Context, opts *DeleteOptions) error {
	err := opts.Files.Update(func(file *profile.File) error {
		p := file.Profiles[opts.Name]
		if p == nil {
			return notFound(opts.Name, opts.Files.Path)
		}
		if s := opts.Files.Keys.Store(p.Key); s != nil {
			if err := s.Delete(opts.Name); err != nil {
				opts.Printer.Warn("warning: cannot remove the key of profile %s from the %s: %v", opts.Name, keystore.StoreName(p.Key), err)
			}
		}
		delete(file.Profiles, opts.Name)
		if file.Current == opts.Name {
			file.Current = ""
		}
		return nil
	})
	if err != nil {
		return err
	}
	opts.Printer.Note("Deleted profile %s", opts.Name)
	return nil
}

// completeNames offers the profiles' names.
func completeNames(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		file, err := filesOf(f).Load()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return file.Names(), cobra.ShellCompDirectiveNoFileComp
	}
}
