// Package engine is abx's local engine: E2B's HTTP API served on loopback
// for the configured provider, so that every E2B SDK and tool reaches the
// provider's sandboxes through abx (docs/engine.md): one of abx's three
// doors over the sandbox operations (internal/sandboxes). The control
// plane is translated into the operations; the data plane is forwarded to
// the sandbox's ports by the provider's URL rule, to the endpoints the
// operations hand out. Local clients know only the engine's token: the
// provider's API key and the sandboxes' access tokens stay inside abx. It
// links no command-line library.
package engine

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/portforward"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/secrets"
)

// Options configure an engine.
type Options struct {
	// Sandboxes are the sandbox operations the routes translate to. The
	// engine serves many requests of the same sandboxes: it keeps their
	// endpoints for a while (EndpointTTL is what the command gives it).
	Sandboxes *sandboxes.Service
	// Transport reaches the sandboxes' data plane (abx's, with its proxy
	// and CA settings).
	Transport http.RoundTripper
	// Token is what local clients present: as their API key on the control
	// plane, and on the data plane as the envd access token or the traffic
	// token (docs/engine.md, "Credentials").
	Token string
	// Domain is the engine's host:port, handed to clients as the sandboxes'
	// domain.
	Domain string
	// PublicPorts are the sandbox ports served without the token, with no
	// credential sent on (a web app a browser opens). envd's and the code
	// interpreter's ports are never public, whatever this says.
	PublicPorts []int
	// AnyHost serves any Host (an engine on an address that is not
	// loopback, reached by names abx cannot know); pages of other origins
	// are refused still.
	AnyHost bool
	// Secrets are taken out of what the engine answers from the
	// provider's and envd's words: an error that echoes the key, metadata
	// that holds a token. They are the doors' one redaction (the command's
	// printers and the MCP server redact the same set); nil redacts
	// nothing.
	Secrets *secrets.Set
	// BodyIdle bounds how long a request's body may send nothing before
	// the request is cut; 0 is DefaultBodyIdle.
	BodyIdle time.Duration
	// MaxForwards bounds the requests forwarded to sandboxes at once; 0 is
	// DefaultMaxForwards.
	MaxForwards int
	// Log, when set, gets one line per request a client sent (--debug):
	// method, path, where it went and the status; never a header.
	Log io.Writer
}

// Engine is an http.Handler.
type Engine struct {
	svc      *sandboxes.Service
	rt       http.RoundTripper
	token    string
	domain   string
	public   map[int]bool
	secrets  *secrets.Set
	bodyIdle time.Duration
	hop      loopback.Hop
	mux      *http.ServeMux
	guarded  http.Handler   // the doors, then serve
	forwards loopback.Limit // of forward
	log      io.Writer
	logMu    sync.Mutex

	mu        sync.Mutex
	forwarder map[target]cached
}

type target struct {
	id   string
	port int
}

// cached is the forwarder of a sandbox port, made for the endpoint the
// operations handed out: a new endpoint (the old one expired, or its
// sandbox was paused, resumed or killed) makes a new forwarder.
type cached struct {
	fw   *portforward.Forwarder
	ep   *provider.Endpoint
	made time.Time
}

// EndpointTTL bounds how long a sandbox port's endpoint (its URL and
// tokens, one read of the sandbox) is reused
// (sandboxes.Service.KeepClients).
const EndpointTTL = 30 * time.Second

// New returns an engine.
func New(opts Options) *Engine {
	e := &Engine{svc: opts.Sandboxes, rt: opts.Transport, token: opts.Token, domain: opts.Domain,
		public: map[int]bool{}, secrets: opts.Secrets, bodyIdle: opts.BodyIdle, hop: loopback.NewHop(),
		mux: http.NewServeMux(), log: opts.Log, forwarder: map[target]cached{}}
	for _, port := range opts.PublicPorts {
		if CheckPublicPort(port) == nil {
			e.public[port] = true
		}
	}
	if e.bodyIdle <= 0 {
		e.bodyIdle = DefaultBodyIdle
	}
	maxForwards := opts.MaxForwards
	if maxForwards <= 0 {
		maxForwards = DefaultMaxForwards
	}
	e.forwards = loopback.NewLimit(maxForwards)
	names := loopback.Names{e.domain}
	if opts.AnyHost {
		e.guarded = originGuard(names, http.HandlerFunc(e.serve))
	} else {
		e.guarded = names.Guard(http.HandlerFunc(e.serve))
	}
	e.route()
	return e
}

// Server is the engine's HTTP server: every read it makes of a client is
// bounded (docs/engine.md, "Bounds"), headers here, bodies as they are
// read.
func (e *Engine) Server() *http.Server {
	return &http.Server{Handler: e, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleConnTimeout,
		// The server's own lines (a client's broken TLS, a failed accept)
		// go to --debug's log, never to Go's standard logger, which would
		// write into a wrapped program's stderr.
		ErrorLog: log.New(e.debugLog(), "engine: ", 0)}
}

// debugLog is where the engine's lines go: --debug's log, a line at a
// time, or nowhere.
func (e *Engine) debugLog() io.Writer {
	if e.log == nil {
		return io.Discard
	}
	return lockedLog{e}
}

type lockedLog struct{ e *Engine }

func (l lockedLog) Write(p []byte) (int, error) {
	l.e.logMu.Lock()
	defer l.e.logMu.Unlock()
	return l.e.log.Write(p)
}

// ServeHTTP checks a request's Host and Origin, then sends a request for a
// sandbox's port to the data plane and everything else, once its token is
// checked, to the control plane.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e.log != nil {
		start, rec := time.Now(), &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		defer func() { e.logLine(r, rec.status, time.Since(start)) }()
		w = rec
	}
	e.guarded.ServeHTTP(w, r)
}

func (e *Engine) serve(w http.ResponseWriter, r *http.Request) {
	if id, port, ok := dataPlaneTarget(r, e.domain); ok {
		e.dataPlane(w, r, id, port)
		return
	}
	if !e.tokenOK(r.Header.Get("X-API-Key")) {
		e.refuse(w, http.StatusUnauthorized, abxerr.New(abxerr.Unauthorized, "Invalid API key: use the engine's token ('abx provider engine env')"))
		return
	}
	defer loopback.IdleBody(w, r, e.bodyIdle)()
	e.mux.ServeHTTP(w, r)
}

func (e *Engine) tokenOK(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(e.token)) == 1
}

// dataPlaneTarget finds the sandbox and port a request is for: the
// E2b-Sandbox-Id/E2b-Sandbox-Port headers SDKs send when E2B_SANDBOX_URL
// is set, or a {port}-{id}.{domain} host.
func dataPlaneTarget(r *http.Request, domain string) (string, int, bool) {
	// A port out of range is the operation's to refuse (sandbox.port).
	if id := r.Header.Get("E2b-Sandbox-Id"); id != "" {
		port, err := strconv.Atoi(r.Header.Get("E2b-Sandbox-Port"))
		return id, port, err == nil
	}
	host := r.Host
	if domainHost, _, _ := strings.Cut(domain, ":"); domainHost != "" {
		h, _, _ := strings.Cut(host, ":")
		label, rest, found := strings.Cut(h, ".")
		if found && rest == domainHost {
			if p, id, ok := strings.Cut(label, "-"); ok {
				if port, err := strconv.Atoi(p); err == nil && id != "" {
					return id, port, true
				}
			}
		}
	}
	return "", 0, false
}

// writeError answers in E2B's envelope, with abx's code beside it. The
// message may hold the provider's or envd's words: it is redacted. A
// status the service gave is answered with the wait it asked for, if any
// (a 429's Retry-After).
func (e *Engine) writeError(w http.ResponseWriter, status int, err error) {
	ae := abxerr.From(err)
	w.Header().Set("Content-Type", "application/json")
	if ae.RetryAfter > 0 && status == ae.Status {
		w.Header().Set("Retry-After", strconv.FormatInt(int64((ae.RetryAfter+time.Second-1)/time.Second), 10))
	}
	w.WriteHeader(status)
	msg := ae.Message
	if ae.Status != 0 && ae.Status != status {
		// The service's status, which abx's words for its answer end
		// with, is not this answer's (sandbox-manager's 400 for a missing
		// template is a 404 here): an envelope tells one status, its own.
		msg = strings.ReplaceAll(msg, fmt.Sprintf(" (HTTP %d)", ae.Status), "")
	}
	_ = json.NewEncoder(w).Encode(e2bapi.Error{Code: status, Message: abxerr.CutWords(e.redact(msg)), AbxCode: string(ae.Code)})
}

// redact takes the secrets abx knows out of s.
func (e *Engine) redact(s string) string { return e.secrets.Redact(s) }

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
