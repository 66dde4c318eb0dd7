// Package engine is abx's local engine: E2B's HTTP API served on loopback
// for the configured provider, so that every E2B SDK and tool reaches the
// provider's sandboxes through abx (docs/engine.md). The control plane is
// translated into the provider's calls; the data plane is forwarded to the
// sandbox's ports by the provider's URL rule. Local clients know only the
// engine's token: the provider's API key and the sandboxes' access tokens
// stay inside abx. It knows no cobra.
package engine

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/portforward"
	"github.com/abx-dev/abx/internal/provider"
)

// Options configure an engine.
type Options struct {
	Provider   provider.Provider
	Descriptor *provider.Descriptor
	// Transport reaches the sandboxes' data plane (abx's, with its proxy
	// and CA settings).
	Transport http.RoundTripper
	// Token is what local clients present, as their API key on the control
	// plane and as the envd access token on the data plane.
	Token string
	// Domain is the engine's host:port, handed to clients as the sandboxes'
	// domain.
	Domain string
	// Log, when set, gets one line per request a client sent (--debug):
	// method, path, where it went and the status; never a header.
	Log io.Writer
}

// Engine is an http.Handler.
type Engine struct {
	p      provider.Provider
	d      *provider.Descriptor
	rt     http.RoundTripper
	token  string
	domain string
	mux    *http.ServeMux
	log    io.Writer
	logMu  sync.Mutex

	mu        sync.Mutex
	forwarder map[target]cached
}

type target struct {
	id   string
	port int
}

type cached struct {
	fw   *portforward.Forwarder
	when time.Time
}

// endpointTTL bounds how long a sandbox port's endpoint (its URL and
// tokens, one read of the sandbox) is reused.
const endpointTTL = 30 * time.Second

// New returns an engine.
func New(opts Options) *Engine {
	e := &Engine{p: opts.Provider, d: opts.Descriptor, rt: opts.Transport, token: opts.Token, domain: opts.Domain,
		mux: http.NewServeMux(), log: opts.Log, forwarder: map[target]cached{}}
	e.routes()
	return e
}

// ServeHTTP sends a request for a sandbox's port to the data plane and
// everything else, once its token is checked, to the control plane.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e.log != nil {
		start, rec := time.Now(), &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() { e.logLine(r, rec.status, time.Since(start)) }()
		w = rec
	}
	if id, port, ok := dataPlaneTarget(r, e.domain); ok {
		e.forward(w, r, id, port)
		return
	}
	if !e.tokenOK(r.Header.Get("X-API-Key")) {
		writeError(w, http.StatusUnauthorized, abxerr.New(abxerr.Unauthorized, "Invalid API key: use the engine's token ('abx provider engine env')"))
		return
	}
	e.mux.ServeHTTP(w, r)
}

func (e *Engine) tokenOK(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(e.token)) == 1
}

// dataPlaneTarget finds the sandbox and port a request is for: the
// E2b-Sandbox-Id/E2b-Sandbox-Port headers SDKs send when E2B_SANDBOX_URL
// is set, or a {port}-{id}.{domain} host.
func dataPlaneTarget(r *http.Request, domain string) (string, int, bool) {
	if id := r.Header.Get("E2b-Sandbox-Id"); id != "" {
		port, err := strconv.Atoi(r.Header.Get("E2b-Sandbox-Port"))
		return id, port, err == nil && port > 0 && port < 65536
	}
	host := r.Host
	if domainHost, _, _ := strings.Cut(domain, ":"); domainHost != "" {
		h, _, _ := strings.Cut(host, ":")
		label, rest, found := strings.Cut(h, ".")
		if found && rest == domainHost {
			if p, id, ok := strings.Cut(label, "-"); ok {
				if port, err := strconv.Atoi(p); err == nil && port > 0 && port < 65536 && id != "" {
					return id, port, true
				}
			}
		}
	}
	return "", 0, false
}

// writeError answers in E2B's envelope, with abx's code beside it.
func writeError(w http.ResponseWriter, status int, err error) {
	e := abxerr.From(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorJSON{Code: status, Message: e.Message, AbxCode: string(e.Code)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// statusRecorder remembers the status a handler wrote, for the log; it
// passes flushes and hijacks on, so streams and upgrades still work.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (e *Engine) logLine(r *http.Request, status int, took time.Duration) {
	where := "control plane"
	if id, port, ok := dataPlaneTarget(r, e.domain); ok {
		where = fmt.Sprintf("sandbox %s port %d", id, port)
	}
	e.logMu.Lock()
	defer e.logMu.Unlock()
	_, _ = fmt.Fprintf(e.log, "engine: %s %s -> %s: %d (%s)\n", r.Method, r.URL.Path, where, status, took.Round(time.Millisecond))
}
