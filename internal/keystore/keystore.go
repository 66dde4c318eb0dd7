// Package keystore keeps the API key of each profile: in the OS keyring
// (Secret Service on Linux, the Keychain on macOS, the Credential Manager
// on Windows), or, where no keyring answers, in a file of mode 0600 beside
// the config file (docs/configuration.md, "Where the key is kept").
package keystore

import (
	"errors"
	"path/filepath"

	"github.com/abx-dev/abx/internal/runfile"
)

// ErrNotFound says a store holds no key for the profile.
var ErrNotFound = errors.New("no key is stored for this profile")

// Store is one place keys are kept.
type Store interface {
	// Get returns the profile's key, or ErrNotFound.
	Get(profile string) (string, error)
	// Set stores the profile's key, replacing one stored before.
	Set(profile, key string) error
	// Delete removes the profile's key; a key not there is no error.
	Delete(profile string) error
}

// Keys are the stores of one config file: keys stored for its profiles
// are its own, not another file's profiles of the same name.
type Keys struct {
	// Config is the config file's path.
	Config string
	// Getenv reads the environment (whether a keyring can answer here).
	Getenv func(string) string
}

// Where a profile's key is kept, as the config file names it.
const (
	InKeyring = "keyring"
	InFile    = "file"
)

// Store is the store where names (InKeyring, InFile), nil for another.
func (k Keys) Store(where string) Store {
	switch where {
	case InKeyring:
		return k.Keyring()
	case InFile:
		return k.File()
	}
	return nil
}

// StoreName words the store where names in a sentence.
func StoreName(where string) string {
	if where == InFile {
		return "key file"
	}
	return where
}

// Keyring is the OS keyring's store for these profiles.
func (k Keys) Keyring() *Keyring {
	return &Keyring{account: func(profile string) string { return profile + "@" + k.Config }, getenv: k.Getenv}
}

// File is the file store for these profiles: one file a profile in keys/
// beside the config file.
func (k Keys) File() *File {
	home := ""
	if k.Getenv != nil {
		home = runfile.Home(k.Getenv)
	}
	return &File{Dir: filepath.Join(filepath.Dir(k.Config), "keys"), Home: home}
}
