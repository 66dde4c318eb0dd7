package profiles

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/keystore"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/profile"
)

// logoutNames are the names of `abx logout`, declared once.
var logoutNames = cmdutil.Names{"logout"}

// LogoutOptions are the inputs of `abx logout`.
type LogoutOptions struct {
	Printer *output.Printer
	Files   *Files
	// Name is the profile: --profile, ABX_PROFILE or the current one.
	Name func(*profile.File) string
}

type logoutJSON struct {
	Profile string `json:"profile"`
	// Removed is the store the key was removed from, "" when none was
	// kept.
	Removed string `json:"removed"`
}

// NewCmdLogout builds `abx logout`.
func NewCmdLogout(f *cmdutil.Factory, runF func(context.Context, *LogoutOptions) error) *cobra.Command {
	opts := &LogoutOptions{Printer: f.Printer, Name: func(file *profile.File) string { return named(f, file) }}
	cmd := &cobra.Command{
		Use:   logoutNames.Use("[--profile NAME]"),
		Short: "Remove a profile's API key from its store",
		Long: `Remove the API key of a profile (--profile NAME, ABX_PROFILE, else the current one)
from the keyring or the key file it is kept in. The profile's settings stay: 'abx login'
gives it a key again, 'abx profile delete' removes it whole.`,
		Example: `  abx logout
  abx logout --profile staging`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Files = filesOf(f)
			return cmdutil.Run(cmd, opts, runF, runLogout)
		},
	}
	return cmdutil.NoProvider(cmd)
}

func runLogout(_ context.Context, opts *LogoutOptions) error {
	var out logoutJSON
	err := opts.Files.Update(func(file *profile.File) error {
		name := opts.Name(file)
		if name == "" {
			return abxerr.New(abxerr.Usage, "no profile to log out of: none is current").
				WithHint("name one with --profile NAME ('abx profile list' shows them)")
		}
		p := file.Profiles[name]
		if p == nil {
			return notFound(name, opts.Files.Path)
		}
		out.Profile = name
		if p.Emulator != "" {
			return abxerr.New(abxerr.InvalidInput, "profile %s is an emulator's: its key is the emulator's own", name).
				WithHint("'abx profile delete %s' removes the profile", name)
		}
		if s := opts.Files.Keys.Store(p.Key); s != nil {
			if err := s.Delete(name); err != nil {
				return abxerr.New(abxerr.InvalidConfig, "cannot remove the key of profile %s from the %s: %v", name, keystore.StoreName(p.Key), err).
					WithHint("unlock the keyring and try again")
			}
			out.Removed = p.Key
		}
		p.Key = ""
		return nil
	})
	if err != nil {
		return err
	}
	return opts.Printer.Print(out, []string{out.Profile}, func() error {
		if out.Removed == "" {
			return opts.Printer.Line(fmt.Sprintf("Profile %s had no key stored", out.Profile))
		}
		return opts.Printer.Line(fmt.Sprintf("Logged out: the key of profile %s is removed from the %s", out.Profile, keystore.StoreName(out.Removed)))
	})
}
