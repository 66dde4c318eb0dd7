// Package cmdutil is what every command of abx's tree shares: the Factory
// (what a command asks for: streams, the printer, the provider and its
// clients), argument and value parsing, the annotations the root reads,
// the binding of the provider's settings from flags and the environment,
// and the pieces of command-line wiring more than one group uses. It knows
// what a command needs, not how it is made: internal/cmd/factory builds
// the Factory with the concrete provider and HTTP client.
package cmdutil

import (
	"net/http"

	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/profile"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// Factory carries what commands share. It is built once per run, before
// the command tree, and nothing in it changes after: commands copy its
// fields into their Options when they are built, and what depends on the
// command line (--provider, --debug, the providers' settings) is read
// through Flags when a command first asks for it, once the line is parsed.
type Factory struct {
	IO      *output.Streams
	Printer *output.Printer
	// Getenv reads the environment: os.Getenv, or a test's map, so that
	// tests need not change the process's environment and can run in
	// parallel.
	Getenv   func(string) string
	Registry *provider.Registry
	// Flags are the flags the Factory reads: --provider, --debug and
	// every provider's settings. The root adds them to its own.
	Flags *pflag.FlagSet

	// Made on first use, once per run.

	// Profile is the profile this run uses (--profile, ABX_PROFILE, or the
	// config file's current one), nil for none; an error for a config file
	// that cannot be read or a profile it does not have.
	Profile func() (*Profile, error)
	// Selected is the provider --provider, ABX_PROVIDER or the profile
	// names.
	Selected func() (*provider.Descriptor, error)
	// Settings are the selected provider's settings, bound from flags,
	// variables and defaults and checked; their secrets are known to the
	// printers from then on. stdin is not read: a setting given as '-'
	// waits for Provider. The error is the first setting that could not
	// be bound; the Settings still say what was.
	Settings func() (*Settings, error)
	// Provider opens the selected provider with its settings. A missing
	// or bad setting is refused here, before any request.
	Provider func() (provider.Provider, error)
	// HTTPClient is the one client every request goes through.
	HTTPClient func() *http.Client
	// Sandboxes are the sandbox operations on the selected provider, the
	// one way a command reaches a sandbox and its servers.
	Sandboxes *sandboxes.Service
	// Debug tells whether --debug asked for a trace of every request.
	Debug func() bool
}

// ProviderName is the provider --provider, ABX_PROVIDER or the selected
// profile names, in that order; "" when none does.
func (f *Factory) ProviderName() string {
	if fl := f.Flags.Lookup("provider"); fl != nil && fl.Value.String() != "" {
		return fl.Value.String()
	}
	if p := f.Getenv("ABX_PROVIDER"); p != "" {
		return p
	}
	if f.Profile != nil {
		if p, err := f.Profile(); err == nil && p != nil {
			return p.Provider
		}
	}
	return ""
}

// ProfileNamed is the profile --profile or, without it, ABX_PROFILE
// names, and which of them did ("flag" or "env"); "" when neither does
// (a run then uses the config file's current one).
func (f *Factory) ProfileNamed() (name, by string) {
	if fl := f.Flags.Lookup("profile"); fl != nil && fl.Changed {
		return fl.Value.String(), "flag"
	}
	if n := f.Getenv("ABX_PROFILE"); n != "" {
		return n, "env"
	}
	return "", ""
}

// Profile is the profile a run uses: its name, what selected it, and
// what it holds.
type Profile struct {
	Name string
	// By is what selected it: "flag" (--profile), "env" (ABX_PROFILE) or
	// "current" (the config file's).
	By string
	// Path is the config file's.
	Path string
	*profile.Profile
}

// ProviderLabel names the selected provider in a message, or says that
// none is.
func (f *Factory) ProviderLabel() string {
	if d, err := f.Selected(); err == nil {
		return d.Name
	}
	return "(none selected)"
}
