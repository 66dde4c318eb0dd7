package sandboxes

import (
	"context"
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/provider"
)

// Endpoint reads the sandbox and returns how to reach each of ports on
// it, in their order: the way of port-forward and of the engine's data
// plane to a sandbox's servers. Every port is checked before the sandbox
// is read. Within KeepClients an endpoint is the same value each time, so
// that a door may key what it builds on it (the engine's forwarders). A
// provider without a data plane lacks the capability (E8004); a paused
// sandbox is E2001.
func (s *Service) Endpoint(ctx context.Context, id string, ports ...int) ([]*provider.Endpoint, error) {
	op := Op("sandbox.port")
	if _, err := s.on(ctx, op, id); err != nil {
		return nil, err
	}
	for _, port := range ports {
		if err := op.Input("port").CheckNumber(ctx, int64(port)); err != nil {
			return nil, err
		}
	}
	out := make([]*provider.Endpoint, len(ports))
	for i, port := range ports {
		ep, err := s.endpoint(ctx, id, port, op.Capability)
		if err != nil {
			return nil, err
		}
		out[i] = ep
	}
	return out, nil
}

// endpoint returns how to reach port (0: envd's) on a sandbox whose ID was
// checked, for an operation that needs c: the one place the provider's
// data plane is asked, by the operations (Endpoint) and by the clients
// they make of a sandbox's servers (Envd, interpreter).
func (s *Service) endpoint(ctx context.Context, id string, port int, c provider.Capability) (*provider.Endpoint, error) {
	key := clientKey{id: id, kind: endpointKind, port: port}
	if k, ok := s.kept(key); ok {
		return k.ep, nil
	}
	p, err := s.Provider()
	if err != nil {
		return nil, err
	}
	dp, ok := p.(provider.DataPlane)
	if !ok {
		d, err := s.Descriptor()
		if err != nil {
			return nil, err
		}
		return nil, abxerr.NewUnsupported(d.Name, string(c))
	}
	ep, err := dp.Endpoint(ctx, id, port)
	if err != nil {
		return nil, err
	}
	if ep.State == provider.StatePaused {
		return nil, provider.PausedError(id)
	}
	if s.Learned != nil {
		s.Learned(ep)
	}
	s.keep(key, kept{ep: ep})
	return ep, nil
}

// Envd returns a client of the sandbox's envd as user ("" for envd's
// default) for an operation that needs c: kept from an earlier operation
// within KeepClients, or made from a fresh read of the sandbox.
func (s *Service) Envd(ctx context.Context, id, user string, c provider.Capability) (*envd.Client, error) {
	if _, err := s.target(c, id); err != nil {
		return nil, err
	}
	if err := CheckUser("user", user); err != nil {
		return nil, err
	}
	key := clientKey{id: id, kind: envdKind, user: user}
	if k, ok := s.kept(key); ok {
		return k.envd, nil
	}
	ep, err := s.endpoint(ctx, id, 0, c)
	if err != nil {
		return nil, err
	}
	cl := envd.New(s.client(ep), envd.Endpoint{URL: ep.URL, Header: ep.Header, Version: ep.EnvdVersion,
		Timeout: ep.RequestTimeout, Keepalive: keepalive(ep.IdleTimeout)}, user)
	s.keep(key, kept{envd: cl})
	return cl, nil
}

// interpreter returns a client of the code interpreter of a sandbox whose
// ID an operation checked, kept as Envd's clients are.
func (s *Service) interpreter(ctx context.Context, id string) (*codeinterp.Client, error) {
	key := clientKey{id: id, kind: interpreterKind}
	if k, ok := s.kept(key); ok {
		return k.interp, nil
	}
	ep, err := s.endpoint(ctx, id, provider.CodeInterpreterPort, provider.CodeInterpret)
	if err != nil {
		return nil, err
	}
	cl := codeinterp.New(s.client(ep), codeinterp.Endpoint{URL: ep.URL, Header: ep.Header, Timeout: ep.RequestTimeout})
	s.keep(key, kept{interp: cl})
	return cl, nil
}

// client is the HTTP client of a sandbox's server: the door's, with abx's
// one redirect rule (the endpoint's tokens ride on every request, and a
// redirect could take them elsewhere), the endpoint's renewing credential
// set on each request, and its idle bound.
func (s *Service) client(ep *provider.Endpoint) *http.Client {
	hc := *s.HTTPClient()
	hc.CheckRedirect = httpclient.CheckRedirect
	hc.Transport = ep.Transport(hc.Transport)
	return httpclient.WithIdle(&hc, ep.IdleTimeout)
}

// keepalive is how often envd is asked to send a keepalive on a quiet
// stream: often enough that three fit in the idle bound.
func keepalive(idle time.Duration) time.Duration {
	if idle <= 0 {
		return 0
	}
	return max(time.Second, idle/3)
}
