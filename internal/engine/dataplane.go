package engine

import (
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/portforward"
	"github.com/abx-dev/abx/internal/provider"
)

// envdPort is where envd listens in a sandbox: the one port whose access
// token the engine checks and swaps (the sandbox's stays in abx).
const envdPort = envd.Port

// forward sends a request on to port of sandbox id, streaming both ways,
// with the provider's routing headers and tokens in place of the client's.
func (e *Engine) forward(w http.ResponseWriter, r *http.Request, id string, port int) {
	if port == envdPort && !e.tokenOK(r.Header.Get("X-Access-Token")) {
		writeError(w, http.StatusUnauthorized, abxerr.New(abxerr.Unauthorized, "invalid access token: use the engine's token"))
		return
	}
	fw, err := e.forwarderFor(r, id, port)
	if err != nil {
		fail(w, err)
		return
	}
	r.Header.Del("X-Access-Token")
	r.Header.Del("X-API-Key") // the engine's token goes no further
	fw.ServeHTTP(w, r)
}

// forwarderFor returns the forwarder of a sandbox port, reading the
// sandbox (its URL rule and tokens) at most every endpointTTL.
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
	fw, err := portforward.New(ep, e.rt)
	if err != nil {
		return nil, err
	}
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
