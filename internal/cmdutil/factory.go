// Package cmdutil is what every command of abx's tree shares: the Factory
// (streams, printer, provider and clients, made on first use), argument and
// value parsing, the annotations the root checks, and the binding of the
// provider's settings from flags and the environment.
package cmdutil

import (
	"io"
	"net/http"
	"os"

	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
)

// Factory carries what commands share. Commands copy its fields and methods
// into their Options when they are built; the root fills in the rest
// (format, provider, flags) before any command runs, so everything is read
// lazily.
type Factory struct {
	IO      *output.Streams
	Printer *output.Printer
	// Getenv reads the environment: os.Getenv, or a test's map, so that
	// tests need not change the process's environment and can run in
	// parallel.
	Getenv   func(string) string
	Registry *provider.Registry

	// Set by the root command before any command runs.
	Descriptor *provider.Descriptor
	Flags      *pflag.FlagSet // the global flags, provider settings among them
	Debug      bool

	http     *http.Client
	provider provider.Provider
}

// New returns a factory over these streams and this environment (nil:
// the process's), with every known provider.
func New(io *output.Streams, getenv func(string) string) *Factory {
	if getenv == nil {
		getenv = os.Getenv
	}
	if io.Secrets == nil {
		io.Secrets = &output.Secrets{}
	}
	return &Factory{
		IO:       io,
		Printer:  output.NewPrinter(io),
		Getenv:   getenv,
		Registry: provider.NewRegistry(alicloudcontainer.Descriptor()),
	}
}

// HTTPClient is the one client every request goes through. Its --debug
// trace goes through the redacting writer, since a server may echo a secret
// in a header; and every credential it sends is registered first, so that
// the answer finds it known.
func (f *Factory) HTTPClient() *http.Client {
	if f.http == nil {
		var trace io.Writer
		if f.Debug {
			trace = f.IO.SafeErrOut()
		}
		f.http = httpclient.New(trace)
		f.http.Transport = &secretsTransport{next: f.http.Transport, secrets: f.IO.Secrets}
	}
	return f.http
}

// Provider binds and checks the configuration and opens the provider. A
// missing or bad setting is refused here, before any request.
func (f *Factory) Provider() (provider.Provider, error) {
	if f.provider != nil {
		return f.provider, nil
	}
	if f.Descriptor == nil {
		return nil, abxerr.New(abxerr.UnknownProvider, "no provider selected")
	}
	cfg, bound, err := f.BindSettings(f.Descriptor, f.IO.In)
	f.RegisterSettingSecrets(f.Descriptor, bound)
	if err != nil {
		return nil, err
	}
	if problems := cfg.Problems(); len(problems) > 0 {
		return nil, problems[0]
	}
	deps := provider.Deps{HTTP: f.HTTPClient(), Warn: f.IO.SafeErrOut()}
	if f.Debug {
		deps.Log = f.IO.SafeErrOut()
	}
	p, err := f.Descriptor.Open(cfg, deps)
	if err != nil {
		return nil, err
	}
	f.provider = p
	return p, nil
}

// ProviderName is the provider --provider or ABX_PROVIDER names; "" when
// neither does.
func (f *Factory) ProviderName() string {
	if f.Flags != nil {
		if fl := f.Flags.Lookup("provider"); fl != nil && fl.Value.String() != "" {
			return fl.Value.String()
		}
	}
	return f.Getenv("ABX_PROVIDER")
}

// SelectProvider picks the provider named by --provider or ABX_PROVIDER.
func (f *Factory) SelectProvider() (*provider.Descriptor, error) {
	d, err := f.Registry.Lookup(f.ProviderName())
	if err != nil {
		return nil, err
	}
	f.Descriptor = d
	return d, nil
}
