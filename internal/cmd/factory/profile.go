package factory

import (
	"errors"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/keystore"
	"github.com/abx-dev/abx/internal/profile"
	"github.com/abx-dev/abx/internal/runfile"
)

// profile reads the config file and picks the run's profile: --profile,
// else ABX_PROFILE, else the file's current one; nil when none is named.
// A file that cannot be read is an error even then: it is the user's, and
// a run must not quietly go elsewhere than it says.
func (w *wiring) profile() (*cmdutil.Profile, error) {
	path := profile.Path(w.f.Getenv)
	name, by := w.f.ProfileNamed()
	file, err := profile.Load(path, runfile.Home(w.f.Getenv), profile.SettingsOf(w.f.Registry))
	if err != nil {
		return nil, err
	}
	if name == "" {
		if file.Current == "" {
			return nil, nil
		}
		name, by = file.Current, "current"
	}
	p := file.Profiles[name]
	if p == nil {
		where := path
		if where == "" {
			where = "the config file (there is none: set HOME or ABX_CONFIG)"
		}
		return nil, abxerr.New(abxerr.InvalidConfig, "no profile %q in %s", name, where).
			WithHint("'abx profile list' shows the profiles; 'abx login --profile %s' makes it", name)
	}
	return &cmdutil.Profile{Name: name, By: by, Path: path, Profile: p}, nil
}

// layer is the profile's part of the settings: its values, and its key
// from where the profile keeps it. An emulator's profile takes its
// address and key from the emulator while it runs.
func (w *wiring) layer(p *cmdutil.Profile) *cmdutil.Layer {
	if p == nil {
		return nil
	}
	l := &cmdutil.Layer{Profile: p.Name, Values: map[string]string{}}
	for k, v := range p.Settings {
		l.Values[k] = v
	}
	if p.Emulator != "" {
		emulatorLayer(l, p)
		return l
	}
	store := keystore.Keys{Config: p.Path, Getenv: w.f.Getenv}.Store(p.Key)
	if store == nil {
		l.Key = func() (string, string, error) {
			return "", "", abxerr.New(abxerr.MissingConfig, "profile %s has no key stored", p.Name).
				WithHint("run 'abx login --profile %s', or give the key with ABX_ALICLOUD_CONTAINER_API_KEY or --api-key-file", p.Name)
		}
		return l
	}
	l.Key = func() (string, string, error) {
		key, err := store.Get(p.Name)
		switch {
		case errors.Is(err, keystore.ErrNotFound):
			return "", "", abxerr.New(abxerr.MissingConfig, "profile %s has no key in its %s", p.Name, keystore.StoreName(p.Key)).
				WithHint("run 'abx login --profile %s'", p.Name)
		case err != nil:
			if e := abxerr.From(err); e.Code == abxerr.InvalidConfig {
				return "", "", err // the store's own words (a key file others may read)
			}
			return "", "", abxerr.New(abxerr.MissingConfig, "cannot read the key of profile %s from the %s: %v", p.Name, keystore.StoreName(p.Key), err).
				WithHint("unlock the keyring, or give the key with ABX_ALICLOUD_CONTAINER_API_KEY or --api-key-file")
		}
		return key, storeSource[p.Key], nil
	}
	return l
}

// storeSource names a key's store as its source.
var storeSource = map[string]string{keystore.InKeyring: cmdutil.SourceKeyring, keystore.InFile: cmdutil.SourceKeyFile}
