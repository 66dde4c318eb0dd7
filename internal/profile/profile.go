// Package profile is abx's config file: named profiles, each a provider
// and its settings, and which one is current (docs/configuration.md). It
// reads the file strictly (a malformed line or an unknown key is an error
// that names the file and the line) and writes it atomically under a lock,
// so that two shells switching profiles at once never leave it torn. It
// holds no key: keys live in their stores (package keystore).
package profile

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/keystore"
	"github.com/abx-dev/abx/internal/provider"
)

// Reserved fields of a profile; every other field is one of its
// provider's settings.
const (
	FieldProvider = "provider"
	FieldKey      = "key"
	FieldEmulator = "emulator"
)

// Where a profile's key is kept (its "key" field): keystore's names.
const (
	KeyKeyring = keystore.InKeyring
	KeyFile    = keystore.InFile
)

// EmulatorName is the profile 'abx emulator start' keeps up to date.
const EmulatorName = "emulator"

// Profile is one named way to reach a provider.
type Profile struct {
	Provider string
	// Settings are the provider's settings by key (domain, protocol, …),
	// as text; never the key itself.
	Settings map[string]string
	// Key says where the profile's API key is kept: KeyKeyring, KeyFile,
	// or "" for nowhere (an emulator's profile reads it from the
	// emulator's state dir).
	Key string
	// Emulator is the state dir of the emulator this profile points at,
	// "" for a cluster: its address and key are read there while it runs.
	Emulator string
}

// File is the config file's content.
type File struct {
	// Path is where it was read from (or will be written to).
	Path     string
	Current  string
	Profiles map[string]*Profile
}

// Names lists the profiles, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Known says whether key is a setting a profile of provider may hold.
// Load refuses any other field, naming it.
type Known func(provider, key string) bool

// SettingsOf is what a profile of each provider of reg may hold: its
// settings but the secret ones and those that name a file of one (the key
// has its store).
func SettingsOf(reg *provider.Registry) Known {
	return func(name, key string) bool {
		d, err := reg.Lookup(name)
		if err != nil {
			return false
		}
		for _, s := range d.Settings {
			if s.Key == key {
				return !s.Secret && s.FileOf == ""
			}
		}
		return false
	}
}

// validName is a name of 1 to 63 letters, digits, '.', '_' and '-' that
// starts with a letter or a digit (checked by hand: a regular expression
// compiled at start-up costs every command).
func validName(name string) bool {
	if len(name) == 0 || len(name) > 63 {
		return false
	}
	for i, r := range name {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || (r != '.' && r != '_' && r != '-')) {
			return false
		}
	}
	return true
}

// CheckName refuses a profile name that could not be a file name in the
// key store, or a word in a shell, as it is.
func CheckName(name string) error {
	if !validName(name) {
		return abxerr.New(abxerr.InvalidInput, "invalid profile name %q", name).
			WithHint("use letters, digits, '.', '_' and '-' (up to 63, starting with a letter or digit)")
	}
	return nil
}

// Path is the config file's path: $ABX_CONFIG, else abx/config.yaml in
// $XDG_CONFIG_HOME, else in ~/.config (%AppData% on Windows). "" when the
// environment names no home at all: then there is no file to read, and
// nothing can be saved.
func Path(getenv func(string) string) string {
	if p := getenv("ABX_CONFIG"); p != "" {
		return p
	}
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "abx", "config.yaml")
	}
	if runtime.GOOS == "windows" {
		if d := getenv("AppData"); d != "" {
			return filepath.Join(d, "abx", "config.yaml")
		}
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".config", "abx", "config.yaml")
	}
	return ""
}

// errNoPath refuses to save where there is no path.
var errNoPath = abxerr.New(abxerr.MissingConfig, "no place for abx's config file").
	WithHint("set HOME, XDG_CONFIG_HOME or ABX_CONFIG")

// syntaxError is a malformed file: its path and line first, as compilers
// say it, so that an editor can jump there.
func syntaxError(path string, line int, format string, args ...any) error {
	return abxerr.New(abxerr.InvalidConfig, "%s:%d: %s", path, line, fmt.Sprintf(format, args...)).
		WithHint("fix the file, or move it away to start afresh (docs/configuration.md)")
}
