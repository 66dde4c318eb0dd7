package provider

import (
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Kind says how a setting's text is parsed; values are checked before the
// config struct is filled, so a bad value names its variable and flag.
type Kind int

// Setting kinds.
const (
	String Kind = iota
	Int
	Duration
)

// Setting is one configuration value of a provider: the mapstructure key of
// its Config field, the flag and the environment variable that set it.
type Setting struct {
	Key     string // mapstructure key, e.g. "base_url"
	Flag    string // flag name without dashes, e.g. "base-url"
	Env     string // full variable name, e.g. ABX_ALICLOUD_CONTAINER_BASE_URL
	Default string
	Usage   string
	Kind    Kind
	Secret  bool   // never shown, only "set" or "not set"
	FileOf  string // this setting names a file ("-" for stdin) holding the value of that key
}

// Config is a provider's configuration struct, filled from its Settings.
type Config interface {
	// Problems lists every reason the config cannot be used, each an
	// *abxerr.Error that names the variable or flag to set.
	Problems() []error
}

// Deps are what a provider needs from abx to talk to its service.
type Deps struct {
	// HTTP is abx's one client; it already traces requests for --debug.
	HTTP *http.Client
	// Log gets --debug's lines that are not requests (a retry and its
	// wait); nil without --debug.
	Log io.Writer
	// Warn gets warnings for people, one line each: the answer was used,
	// but something in it may be wrong (a list cut short). nil drops them.
	Warn io.Writer
}

// Descriptor is what the registry knows of a provider before it is configured.
type Descriptor struct {
	Name         string
	Summary      string
	Settings     []Setting
	Capabilities []Capability
	NewConfig    func() Config
	Open         func(Config, Deps) (Provider, error)
}

// Registry holds the providers abx knows.
type Registry struct {
	byName map[string]*Descriptor
}

// NewRegistry builds a registry of the given providers.
func NewRegistry(ds ...*Descriptor) *Registry {
	r := &Registry{byName: map[string]*Descriptor{}}
	for _, d := range ds {
		r.byName[d.Name] = d
	}
	return r
}

// Names lists the known providers, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All lists the descriptors sorted by name.
func (r *Registry) All() []*Descriptor {
	var ds []*Descriptor
	for _, n := range r.Names() {
		ds = append(ds, r.byName[n])
	}
	return ds
}

// Lookup finds a provider by name; an empty or unknown name is a usage error
// that lists the known providers.
func (r *Registry) Lookup(name string) (*Descriptor, error) {
	known := strings.Join(r.Names(), ", ")
	if name == "" {
		return nil, abxerr.New(abxerr.UnknownProvider, "no provider selected").
			WithHint("run 'abx login' to make a profile, or pass --provider NAME or set ABX_PROVIDER; known providers: %s", known)
	}
	d, ok := r.byName[name]
	if !ok {
		return nil, abxerr.New(abxerr.UnknownProvider, "unknown provider %q", name).
			WithHint("known providers: %s", known)
	}
	return d, nil
}
