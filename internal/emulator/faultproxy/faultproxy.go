// Package faultproxy is a misbehaving network and a hostile server for
// tests: an HTTP proxy in front of an upstream (the emulator) that passes
// requests through, except those a rule matches, which it answers the way
// a broken or malicious service would: transient errors, resets, cut and
// stalled streams, redirects to another origin, and bodies that are empty,
// wrong, endless or huge.
package faultproxy

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/loopback"
)

// Fault answers a request a rule matched. up passes it on to the upstream.
type Fault func(w http.ResponseWriter, r *http.Request, up http.Handler)

// Rule picks requests by method ("" for any) and a regular expression on
// the path; Times limits how many it takes (0: all of them).
type Rule struct {
	Method string
	Path   string
	Times  int
	Fault  Fault

	re   *regexp.Regexp
	used int
}

// Proxy is the server abx is pointed at.
type Proxy struct {
	*httptest.Server
	up http.Handler

	mu    sync.Mutex
	rules []*Rule
	seen  []string // "METHOD path" of every request, in order
}

// New starts a proxy in front of upstream (a base URL such as an
// httptest server's).
func New(upstream string) *Proxy {
	target, err := url.Parse(upstream)
	if err != nil {
		panic(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // streams stream
	p := &Proxy{up: rp}
	// In full duplex, so that the proxy itself cuts no stream (loopback.Duplex).
	p.Server = httptest.NewServer(loopback.Duplex(http.HandlerFunc(p.serve)))
	return p
}

// Add installs a rule; the first rule that matches a request answers it.
func (p *Proxy) Add(r Rule) {
	r.re = regexp.MustCompile(r.Path)
	p.mu.Lock()
	p.rules = append(p.rules, &r)
	p.mu.Unlock()
}

// Reset drops every rule and forgets the requests seen.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.rules, p.seen = nil, nil
	p.mu.Unlock()
}

// Seen lists "METHOD path" of the requests that reached the proxy.
func (p *Proxy) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// Count is how many requests matched method ("" any) and the path pattern.
func (p *Proxy) Count(method, path string) int {
	re := regexp.MustCompile(path)
	n := 0
	for _, s := range p.Seen() {
		m, pth, _ := strings.Cut(s, " ")
		if (method == "" || m == method) && re.MatchString(pth) {
			n++
		}
	}
	return n
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.seen = append(p.seen, r.Method+" "+r.URL.Path)
	var fault Fault
	for _, rule := range p.rules {
		if (rule.Method == "" || rule.Method == r.Method) && rule.re.MatchString(r.URL.Path) &&
			(rule.Times == 0 || rule.used < rule.Times) {
			rule.used++
			fault = rule.Fault
			break
		}
	}
	p.mu.Unlock()
	if fault == nil {
		p.up.ServeHTTP(w, r)
		return
	}
	fault(w, r, p.up)
}

// Status answers with code, the headers given as name, value pairs, and
// body, without passing the request on.
func Status(code int, body string, header ...string) Fault {
	return func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		if w.Header().Get("Content-Type") == "" && body != "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// Reset breaks the connection before any answer: the request never
// reached the upstream.
func Reset() Fault {
	return func(w http.ResponseWriter, _ *http.Request, _ http.Handler) { abort(w) }
}

// ResetAfter passes the request on (it takes effect there) and breaks the
// connection instead of answering.
func ResetAfter() Fault {
	return func(w http.ResponseWriter, r *http.Request, up http.Handler) {
		up.ServeHTTP(httptest.NewRecorder(), r)
		abort(w)
	}
}

// Cut passes the answer's status, headers and first n bytes of body on,
// then breaks the connection.
func Cut(n int64) Fault {
	return func(w http.ResponseWriter, r *http.Request, up http.Handler) {
		lw := &limitWriter{ResponseWriter: w, left: n, full: make(chan struct{})}
		done := make(chan struct{})
		ctx, cancel := contextOf(r)
		defer cancel()
		go func() {
			defer close(done)
			pass(up, lw, r.WithContext(ctx))
		}()
		select {
		case <-lw.full:
		case <-done:
		}
		cancel()
		abort(w)
		<-done // nothing touches w once the handler returns
	}
}

// CutAfter passes the answer on as it comes and, d after its headers
// passed, closes the connection, mid-body when the answer is a stream
// still going: a proxy's route or stream timeout (the sandbox-manager's
// Envoy cuts a route after 400 s). The client sees the body end without
// its last chunk, an unexpected EOF inside a Connect envelope; the
// upstream sees its client go away. An answer that ends before d passes
// whole. d counts from the headers, not from the request, so that a test's
// stream is cut after it began however slowly the upstream starts.
func CutAfter(d time.Duration) Fault {
	return cutWhen(func() <-chan time.Time { return time.After(d) })
}

// CutWhen is CutAfter's cut, made when cut is closed (once the headers
// passed): for a test that must see the stream carry something first,
// however long that takes on a busy machine.
func CutWhen(cut <-chan struct{}) Fault {
	return cutWhen(func() <-chan time.Time {
		ch := make(chan time.Time, 1)
		go func() { <-cut; ch <- time.Now() }()
		return ch
	})
}

// cutWhen cuts the answer when the channel that when makes, once the
// headers passed, yields.
func cutWhen(when func() <-chan time.Time) Fault {
	return func(w http.ResponseWriter, r *http.Request, up http.Handler) {
		headed := make(chan struct{})
		lw := &limitWriter{ResponseWriter: w, left: math.MaxInt64, full: make(chan struct{}), headed: headed}
		done := make(chan struct{})
		ctx, cancel := contextOf(r)
		defer cancel()
		go func() {
			defer close(done)
			pass(up, lw, r.WithContext(ctx))
		}()
		select {
		case <-done:
			return
		case <-r.Context().Done():
			cancel()
			<-done
			return
		case <-headed:
		}
		select {
		case <-done:
			return
		case <-r.Context().Done():
			cancel()
			<-done
			return
		case <-when():
		}
		lw.close()
		cancel()
		<-done // nothing writes to w any more
		hangUp(w)
	}
}

// Stall passes the answer's status, headers and first n bytes of body on,
// then sends nothing more and keeps the connection open until the client
// goes away.
func Stall(n int64) Fault {
	return func(w http.ResponseWriter, r *http.Request, up http.Handler) {
		lw := &limitWriter{ResponseWriter: w, left: n, full: make(chan struct{})}
		done := make(chan struct{})
		ctx, cancel := contextOf(r)
		defer cancel()
		go func() {
			defer close(done)
			pass(up, lw, r.WithContext(ctx))
		}()
		<-r.Context().Done()
		// The upstream is let go and waited for: nothing touches w once
		// the handler returns.
		lw.close()
		cancel()
		<-done
	}
}

// StallBefore holds the request without answering until the client goes
// away.
func StallBefore() Fault {
	return func(_ http.ResponseWriter, r *http.Request, _ http.Handler) {
		// The server notices the client leave only once the body is read.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}
}

// Hold neither reads the request's body nor answers, for d: a server that
// stopped taking an upload.
func Hold(d time.Duration) Fault {
	return func(_ http.ResponseWriter, r *http.Request, _ http.Handler) {
		select {
		case <-r.Context().Done():
		case <-time.After(d):
		}
	}
}

// Redirect answers code with a Location on another origin: to + the
// request's path and query.
func Redirect(code int, to string) Fault {
	return func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		w.Header().Set("Location", strings.TrimRight(to, "/")+r.URL.RequestURI())
		w.WriteHeader(code)
	}
}

// Endless answers 200 with a body of chunk repeated until the client stops
// reading (or limit bytes, when limit > 0).
func Endless(contentType, prefix, chunk, suffix string, limit int64) Fault {
	return func(w http.ResponseWriter, r *http.Request, _ http.Handler) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		var sent int64
		write := func(s string) bool {
			n, err := io.WriteString(w, s)
			sent += int64(n)
			return err == nil && r.Context().Err() == nil
		}
		if !write(prefix) {
			return
		}
		for limit <= 0 || sent < limit {
			if !write(chunk) {
				return
			}
		}
		write(suffix)
	}
}

// pass serves r from the upstream into w, which a fault cut short: the
// reverse proxy then aborts with a panic, on a goroutine here, where it
// would take the test binary down.
func pass(up http.Handler, w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if err, ok := v.(error); !ok || !errors.Is(err, http.ErrAbortHandler) {
				panic(v)
			}
		}
	}()
	up.ServeHTTP(w, r)
}

// Up passes the answer whole and closes up once its headers passed (the
// first answer's, for a rule that takes several requests): for a test
// that acts once a stream is established, however long that takes on a
// busy machine.
func Up(up chan<- struct{}) Fault {
	var once sync.Once
	return func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		headed := make(chan struct{})
		go func() {
			select {
			case <-headed:
				once.Do(func() { close(up) })
			case <-r.Context().Done():
			}
		}()
		pass(next, &limitWriter{ResponseWriter: w, left: math.MaxInt64, full: make(chan struct{}), headed: headed}, r)
	}
}

// Func answers with f; for faults a test builds itself.
func Func(f func(w http.ResponseWriter, r *http.Request, up http.Handler)) Fault { return f }

// abort closes the client's connection with a reset, the way a crashed
// server or a middlebox would.
func abort(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// hangUp closes the client's connection in the middle of an answer, the
// way a proxy ends a stream it timed out: an orderly close, not a reset.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// limitWriter passes the first left bytes of a body on, flushed, and
// reports when they are out.
type limitWriter struct {
	http.ResponseWriter
	mu     sync.Mutex
	left   int64
	full   chan struct{}
	closed bool
	// headed, when not nil, is closed once the headers passed.
	headed chan struct{}
}

func (l *limitWriter) WriteHeader(code int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.ResponseWriter.WriteHeader(code)
	if l.headed != nil && code >= 200 {
		close(l.headed)
		l.headed = nil
	}
}

func (l *limitWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, io.ErrClosedPipe
	}
	n := int64(len(b))
	if n > l.left {
		n = l.left
	}
	if n > 0 {
		if _, err := l.ResponseWriter.Write(b[:n]); err != nil {
			return 0, err
		}
		if f, ok := l.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
	l.left -= n
	if l.left <= 0 {
		l.closed = true
		close(l.full)
		return int(n), io.ErrClosedPipe
	}
	return len(b), nil
}

func (l *limitWriter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		if f, ok := l.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// close passes no more of the body on; a write then fails.
func (l *limitWriter) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		close(l.full)
	}
}

// Hijack is refused: the fault owns the connection.
func (l *limitWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, http.ErrNotSupported
}

// Origin is another origin: a server that records what reached it and
// answers every request as answer does.
type Origin struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

// NewOrigin starts one that answers 200 with body.
func NewOrigin(body string) *Origin {
	o := &Origin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.reqs = append(o.reqs, r.Clone(r.Context()))
		o.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	return o
}

// Requests lists what reached it.
func (o *Origin) Requests() []*http.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]*http.Request(nil), o.reqs...)
}

// contextOf is the upstream's context for a faulty answer: cancelled
// when the fault is done with it.
func contextOf(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithCancel(r.Context())
}
