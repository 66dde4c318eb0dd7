// Package cli is abx's command tree. Each command is an Options struct, a
// NewCmdX that fills it from flags, and a runX that does the work without
// touching cobra, so tests call runX with buffers.
package cli

import (
	"io"
	"net/http"

	"github.com/spf13/pflag"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
)

// Factory carries what commands share: the streams, the registry, and the
// provider chosen by the global flags, configured on first use.
type Factory struct {
	IO       *output.Streams
	Registry *provider.Registry

	// Set by the root command before any command runs.
	Descriptor *provider.Descriptor
	Format     output.Format
	Debug      bool
	flags      *pflag.FlagSet
	jq         *output.JQWriter // set by --jq; closed by Run

	http     *http.Client
	provider provider.Provider
}

// NewFactory returns a factory over these streams with every known provider.
func NewFactory(io *output.Streams) *Factory {
	return &Factory{IO: io, Registry: provider.NewRegistry(alicloudcontainer.Descriptor())}
}

// HTTPClient is the one client every request goes through.
func (f *Factory) HTTPClient() *http.Client {
	if f.http == nil {
		var trace io.Writer
		if f.Debug {
			trace = f.IO.ErrOut
		}
		f.http = httpclient.New(trace)
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
	cfg, _, err := bindSettings(f.Descriptor, f.flags, f.IO.In)
	if err != nil {
		return nil, err
	}
	if problems := cfg.Problems(); len(problems) > 0 {
		return nil, problems[0]
	}
	p, err := f.Descriptor.Open(cfg, provider.Deps{HTTP: f.HTTPClient()})
	if err != nil {
		return nil, err
	}
	f.provider = p
	return p, nil
}
