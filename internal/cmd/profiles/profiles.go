// Package profiles holds `abx login`, `abx logout` and `abx profile`: the
// named profiles of abx's config file and the keys kept for them
// (docs/configuration.md).
package profiles

import (
	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/keystore"
	"github.com/abx-dev/abx/internal/profile"
	"github.com/abx-dev/abx/internal/runfile"
)

// Verbs are this group's commands, as the root lists them.
func Verbs() []cmdutil.Verb {
	group := cmdutil.GroupSettings
	return []cmdutil.Verb{
		{Names: loginNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdLogin(f, nil) }},
		{Names: logoutNames, Group: group, Build: func(f *cmdutil.Factory) *cobra.Command { return NewCmdLogout(f, nil) }},
		{Names: profileNames, Group: group, Build: NewCmdProfile},
	}
}

// Files are the config file and the key stores of one run.
type Files struct {
	Path string
	// Home is the user's home, where the check of who may change the
	// file stops (runfile.Home).
	Home  string
	Known profile.Known
	Keys  keystore.Keys
}

// filesOf finds the run's config file.
func filesOf(f *cmdutil.Factory) *Files {
	path := profile.Path(f.Getenv)
	return &Files{Path: path, Home: runfile.Home(f.Getenv), Known: profile.SettingsOf(f.Registry),
		Keys: keystore.Keys{Config: path, Getenv: f.Getenv}}
}

// Load reads the config file.
func (fs *Files) Load() (*profile.File, error) { return profile.Load(fs.Path, fs.Home, fs.Known) }

// Update changes the config file under its lock.
func (fs *Files) Update(change func(*profile.File) error) error {
	return profile.Update(fs.Path, fs.Home, fs.Known, change)
}

// named is the profile the flag, ABX_PROFILE or the file's current one
// names, for the commands that act on one (login, logout); "" when none
// does.
func named(f *cmdutil.Factory, file *profile.File) string {
	if name, _ := f.ProfileNamed(); name != "" {
		return name
	}
	return file.Current
}

// notFound refuses a profile the file does not have.
func notFound(name, path string) error {
	return abxerr.New(abxerr.NotFound, "no profile %q in %s", name, path).
		WithHint("'abx profile list' shows the profiles")
}
