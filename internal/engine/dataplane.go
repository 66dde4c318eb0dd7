package engine

import (
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"

	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/portforward"
)

// envdPort is where envd listens in a sandbox: never public, and the port
// the sandbox's own access token goes to (the provider's Endpoint says
// which ports get which credentials).
const envdPort = provider.EnvdPort

// clientCredentials are the headers a local client puts the engine's
// token in; none of them goes further than the engine.
var clientCredentials = []string{"X-Access-Token", "E2B-Traffic-Access-Token", "X-API-Key"}

// forward sends an admitted request on to its sandbox's port, streaming
// both ways, with the provider's routing headers and credentials for that
// port in place of the client's, and the engine's mark. A request without
// the engine's token (authed false) goes on only to an open port.
func (e *Engine) forward(w http.ResponseWriter, r *http.Request, authed bool) {
	id, port, _ := dataPlaneTarget(r, e.domain)
	fw, ep, err := e.forwarderFor(r, id, port)
	if err == nil && !authed && !open(ep) {
		e.refuse(w, http.StatusUnauthorized, errNoToken)
		return
	}
	if err != nil {
		if c := abxerr.From(err).Code; c == abxerr.NotFound || c == abxerr.Paused {
			// As E2B's proxy answers for a sandbox it has no running route
			// to: the SDKs read a 502 as "not running" (isRunning is
			// false), not as a failure.
			e.writeError(w, http.StatusBadGateway, err)
			return
		}
		e.refuse(w, abxerr.HTTPStatus(err), err) // nothing of the body was read, nor sent on
		return
	}
	for _, h := range clientCredentials {
		r.Header.Del(h)
	}
	defer loopback.IdleBody(w, r, e.bodyIdle)()
	fw.ServeHTTP(w, r)
}

// forwarderFor returns the forwarder of a sandbox port, made anew
// whenever the operations hand out a new endpoint (at most every
// EndpointTTL, and after the sandbox was paused, resumed or killed). A
// public port's forwarder sends none of the sandbox's credentials that
// would reach the port's server: whoever reaches the engine reaches that
// port, so none is spent on it. A guarded sandbox's traffic token still
// goes: its gateway asks for it and takes it off before the port.
func (e *Engine) forwarderFor(r *http.Request, id string, port int) (*portforward.Forwarder, *provider.Endpoint, error) {
	eps, err := e.svc.Endpoint(r.Context(), id, port)
	if err != nil {
		return nil, nil, err
	}
	ep := eps[0]
	key := target{id, port}
	e.mu.Lock()
	c, ok := e.forwarder[key]
	e.mu.Unlock()
	if ok && c.ep == ep {
		return c.fw, ep, nil
	}
	shown := ep
	if e.public[port] {
		clean := *ep
		clean.Header = http.Header{}
		for k, vs := range ep.Header {
			if !httpclient.IsSecretHeader(k) {
				clean.Header[k] = vs
			}
		}
		shown = &clean
	}
	fw, err := portforward.New(shown, e.rt)
	if err != nil {
		return nil, nil, err
	}
	fw.Hop = e.hop
	fw.Log = e.debugLog()
	if e.secrets != nil {
		fw.Redact = e.secrets.Redact
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, c := range e.forwarder {
		// An endpoint that old is handed out no more: sandboxes come and
		// go, and the engine lives long.
		if now.Sub(c.made) > EndpointTTL {
			delete(e.forwarder, k)
		}
	}
	e.forwarder[key] = cached{fw: fw, ep: ep, made: now}
	return fw, ep, nil
}
