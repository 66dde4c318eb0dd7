package factory

import (
	"context"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/provider"
)

func (w *wiring) envd(ctx context.Context, id, user string) (*envd.Client, error) {
	ep, err := w.endpoint(ctx, id, 0, provider.ExecRun)
	if err != nil {
		return nil, err
	}
	return envd.New(httpclient.WithIdle(w.f.HTTPClient(), ep.IdleTimeout), envd.Endpoint{URL: ep.URL, Header: ep.Header,
		Version: ep.EnvdVersion, Timeout: ep.RequestTimeout, Keepalive: keepalive(ep.IdleTimeout)}, user), nil
}

func (w *wiring) interpreter(ctx context.Context, id string) (*codeinterp.Client, error) {
	ep, err := w.endpoint(ctx, id, codeinterp.Port, provider.CodeInterpret)
	if err != nil {
		return nil, err
	}
	return codeinterp.New(httpclient.WithIdle(w.f.HTTPClient(), ep.IdleTimeout), codeinterp.Endpoint{URL: ep.URL, Header: ep.Header, Timeout: ep.RequestTimeout}), nil
}

func (w *wiring) portEndpoint(ctx context.Context, id string, port int) (*provider.Endpoint, error) {
	return w.endpoint(ctx, id, port, provider.PortsURL)
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
func (w *wiring) endpoint(ctx context.Context, id string, port int, c provider.Capability) (*provider.Endpoint, error) {
	p, err := w.f.Provider()
	if err != nil {
		return nil, err
	}
	dp, ok := p.(provider.DataPlane)
	if !ok {
		return nil, abxerr.NewUnsupported(w.f.ProviderLabel(), string(c))
	}
	ep, err := dp.Endpoint(ctx, id, port)
	if err != nil {
		return nil, err
	}
	if ep.State == provider.StatePaused {
		return nil, cmdutil.PausedError(id)
	}
	// The sandbox's tokens are secrets from now on: envd's errors and a
	// port's answers may echo them.
	registerHeaderSecrets(w.f.IO.Secrets, ep.Header)
	w.f.IO.Secrets.AddURLPassword(ep.URL)
	return ep, nil
}
