package cmdutil

import (
	"context"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/provider"
)

// EnvdClient reads the sandbox (GET, no side effects) and returns an envd
// client for it, as user ("" for envd's default).
func (f *Factory) EnvdClient(ctx context.Context, id, user string) (*envd.Client, error) {
	ep, err := f.endpoint(ctx, id, 0, provider.ExecRun)
	if err != nil {
		return nil, err
	}
	return envd.New(httpclient.WithIdle(f.HTTPClient(), ep.IdleTimeout), envd.Endpoint{URL: ep.URL, Header: ep.Header,
		Version: ep.EnvdVersion, Timeout: ep.RequestTimeout, Keepalive: keepalive(ep.IdleTimeout)}, user), nil
}

// InterpreterClient reads the sandbox (GET, no side effects) and returns a
// client of its code interpreter.
func (f *Factory) InterpreterClient(ctx context.Context, id string) (*codeinterp.Client, error) {
	ep, err := f.endpoint(ctx, id, codeinterp.Port, provider.CodeInterpret)
	if err != nil {
		return nil, err
	}
	return codeinterp.New(httpclient.WithIdle(f.HTTPClient(), ep.IdleTimeout), codeinterp.Endpoint{URL: ep.URL, Header: ep.Header, Timeout: ep.RequestTimeout}), nil
}

// keepalive is how often envd is asked to send a keepalive on a quiet
// stream: often enough that three fit in the idle bound.
func keepalive(idle time.Duration) time.Duration {
	if idle <= 0 {
		return 0
	}
	return max(time.Second, idle/3)
}

// endpoint asks the provider's data plane for a port of the sandbox; a
// provider without one cannot offer the capability.
func (f *Factory) endpoint(ctx context.Context, id string, port int, c provider.Capability) (*provider.Endpoint, error) {
	p, err := f.Provider()
	if err != nil {
		return nil, err
	}
	dp, ok := p.(provider.DataPlane)
	if !ok {
		return nil, abxerr.NewUnsupported(f.Descriptor.Name, string(c))
	}
	ep, err := dp.Endpoint(ctx, id, port)
	if err != nil {
		return nil, err
	}
	// The sandbox's tokens are secrets from now on: envd's errors and a
	// port's answers may echo them.
	registerHeaderSecrets(f.IO.Secrets, ep.Header)
	f.IO.Secrets.AddURLPassword(ep.URL)
	return ep, nil
}

// PortEndpoint is how to reach a port of the sandbox through its data
// plane (abx port-forward).
func (f *Factory) PortEndpoint(ctx context.Context, id string, port int) (*provider.Endpoint, error) {
	return f.endpoint(ctx, id, port, provider.PortsURL)
}
