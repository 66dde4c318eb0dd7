package engine

import (
	"net/http"
	"strconv"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/portforward"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// What the engine lets in, and what it refuses from the headers alone,
// before it reads a byte of the body or sends anything on
// (docs/engine.md, "Credentials" and "Bounds").

// interpreterPort is the code interpreter's: it runs code, so it is
// never public.
const interpreterPort = provider.CodeInterpreterPort

const (
	// headerTimeout bounds the reading of a request's headers.
	headerTimeout = 10 * time.Second
	// idleConnTimeout bounds how long a kept-alive connection may wait
	// for its next request.
	idleConnTimeout = 2 * time.Minute
	// DefaultBodyIdle is how long a request's body may send nothing: the
	// default idle bound of abx's own streams (--idle-timeout).
	DefaultBodyIdle = 60 * time.Second
	// DefaultMaxForwards bounds the requests forwarded at once. Each holds
	// two connections (the client's and the gateway's) and a copy buffer
	// each way: 256 of them hold about 512 files and under 20 MiB, well
	// within a process's limits, and far more than an SDK program keeps
	// open (a handful of streams per sandbox: commands, watchers, a
	// terminal).
	DefaultMaxForwards = 256
)

// CheckPublicPort refuses a port the engine never makes public: envd's
// (it runs anything as anyone) and the code interpreter's (it runs code).
// That a port is one (1 to 65535) is the catalogue's rule (sandbox.port),
// which the operation holds to for every port a request names.
func CheckPublicPort(port int) *abxerr.Error {
	if port == envdPort || port == interpreterPort {
		return abxerr.New(abxerr.InvalidInput, "port %d cannot be public: it runs commands or code in the sandbox", port).
			WithHint("clients reach it with the engine's token; --public-port is for a sandbox's own servers, such as a web app")
	}
	return nil
}

// dataPlane admits a request for a sandbox's port: one that already went
// through this engine is a loop (508); a path that climbs out of the
// port's is refused (400, portforward.CheckPath); the engine's token, in
// either header the SDKs send it in, is needed for envd's and the code
// interpreter's ports at once (401), and for any other port unless it is
// public (--public-port) or open (a port of a sandbox nobody guards, which
// forward tells once it has the endpoint); then the operation's
// capability. The rest is forwarded, so many at once, once the operation
// has checked the sandbox and the port.
func (e *Engine) dataPlane(w http.ResponseWriter, r *http.Request, id string, port int) {
	authed := e.public[port] || e.tokenOK(r.Header.Get("X-Access-Token")) || e.tokenOK(r.Header.Get("E2B-Traffic-Access-Token"))
	switch {
	case e.hop.Seen(r.Header):
		e.refuse(w, http.StatusLoopDetected, abxerr.New(abxerr.InvalidInput,
			"port %d of sandbox %s leads back to the engine: the request went round in a loop", port, id))
		return
	case portforward.CheckPath(r.URL) != nil:
		e.refuse(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "%v", portforward.CheckPath(r.URL)))
		return
	case !authed && (port == envdPort || port == interpreterPort):
		e.refuse(w, http.StatusUnauthorized, errNoToken)
		return
	}
	ctx, err := e.svc.Admit(sandboxes.WithSpelling(r.Context(), spelling), sandboxes.Op(dataPlaneRoute.Operation))
	if err != nil {
		e.refuse(w, abxerr.HTTPStatus(err), err)
		return
	}
	e.forwards.Serve(w, func() { e.forward(w, r.WithContext(ctx), authed) })
}

// errNoToken refuses a request for a port that needs the engine's token.
var errNoToken = abxerr.New(abxerr.Unauthorized,
	"invalid access token: this port needs the engine's token (X-Access-Token or E2B-Traffic-Access-Token): "+
		"envd's and the code interpreter's always, a guarded sandbox's every port")

// refuse answers from the headers alone, in E2B's envelope, and closes the
// connection without reading the body: a client that sends it a byte a
// second holds nothing (loopback.RefuseWith).
func (e *Engine) refuse(w http.ResponseWriter, status int, err error) {
	loopback.RefuseWith(w, func() { e.writeError(w, status, err) })
}

// originGuard refuses a page of another origin, whatever the Host: the
// engine on an address that is not loopback cannot know the names it is
// reached by, but a browser still says which page calls it.
func originGuard(names loopback.Names, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); !names.Origin(origin) {
			loopback.Refuse(w, http.StatusForbidden, "abx serves this machine's clients only: a page of "+strconv.Quote(origin)+" may not call it")
			return
		}
		next.ServeHTTP(w, r)
	})
}
