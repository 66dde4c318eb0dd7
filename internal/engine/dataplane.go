package engine

import (
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/portforward"
	"github.com/abx-dev/abx/internal/provider"
)

// envdPort is where envd listens in a sandbox: never public, and the port
// the sandbox's own access token goes to (the provider's Endpoint says
// which ports get which credentials).
const envdPort = envd.Port

// clientCredentials are the headers a local client puts the engine's
// token in; none of them goes further than the engine.
var clientCredentials = []string{"X-Access-Token", "E2B-Traffic-Access-Token", "X-API-Key"}

// forward sends an admitted request on to its sandbox's port, streaming
// both ways, with the provider's routing headers and credentials for that
// port in place of the client's, and the engine's mark.
func (e *Engine) forward(w http.ResponseWriter, r *http.Request) {
	id, port, _ := dataPlaneTarget(r, e.domain)
	fw, err := e.forwarderFor(r, id, port)
	if err != nil {
		e.fail(w, err)
		return
	}
	for _, h := range clientCredentials {
		r.Header.Del(h)
	}
	defer loopback.IdleBody(w, r, e.bodyIdle)()
	fw.ServeHTTP(w, r)
}

// forwarderFor returns the forwarder of a sandbox port, reading the
// sandbox (its URL rule and tokens) at most every endpointTTL. A public
// port's forwarder sends no credential at all: whoever reaches the engine
// reaches that port, so none of the sandbox's is spent on it.
func (e *Engine) forwarderFor(r *http.Request, id string, port int) (*portforward.Forwarder, error) {
	key := target{id, port}
	e.mu.Lock()
	c, ok := e.forwarder[key]
	e.mu.Unlock()
	if ok && time.Since(c.when) < endpointTTL {
		return c.fw, nil
	}
	dp, isDP := e.p.(provider.DataPlane)
	if !isDP {
		return nil, abxerr.NewUnsupported(e.d.Name, string(provider.PortsURL))
	}
	ep, err := dp.Endpoint(r.Context(), id, port)
	if err != nil {
		return nil, err
	}
	if e.public[port] {
		clean := *ep
		clean.Header = http.Header{}
		for k, vs := range ep.Header {
			if !httpclient.IsSecretHeader(k) {
				clean.Header[k] = vs
			}
		}
		ep = &clean
	}
	fw, err := portforward.New(ep, e.rt)
	if err != nil {
		return nil, err
	}
	fw.Hop, fw.Redact = e.hop, e.redactor
	e.mu.Lock()
	e.forwarder[key] = cached{fw: fw, when: time.Now()}
	e.mu.Unlock()
	return fw, nil
}

// forget drops what the engine knows of a sandbox's ports (after a kill or
// a pause: its tokens or address may change).
func (e *Engine) forget(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := range e.forwarder {
		if k.id == id {
			delete(e.forwarder, k)
		}
	}
}
