// Package manager is a faithful stand-in for the OpenKruise Agents
// sandbox-manager's E2B-shaped API (docs/protocol.md, "The control plane
// (sandbox-manager API)"), quirks included: both
// path sets, X-API-Key, the error envelope with request_id, x-next-token
// pages, connect 200/201, idempotent pause, 204 resume, 404 on a second
// delete, the 30 s floor on create, and a request log tests assert on.
// abx's tests use it, and the emulator serves it to users.
package manager

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// Limits of the real server.
const (
	DefaultTimeout = 300 * time.Second
	MinTimeout     = 30 * time.Second
	MaxTimeout     = 2592000 * time.Second
	maxListLimit   = 100
	// pausedFor is how far endAt jumps when a sandbox is paused.
	pausedFor = 100 * 365 * 24 * time.Hour
)

// ResourceKey is the metadata key every sandbox carries.
const ResourceKey = "e2b.agents.kruise.io/sandbox-resource"

// DefaultTemplates are the templates an emulator serves unless told
// otherwise: the names the official SDKs create with when given none
// (base; code-interpreter-v1 for the code interpreter's SDKs) and abx's own
// short name for a sandbox with a code interpreter.
var DefaultTemplates = []string{"base", "code-interpreter", "code-interpreter-v1"}

// Options configure the fake.
type Options struct {
	// APIKey is the one key accepted in X-API-Key.
	APIKey string
	// Templates that can be created; empty means DefaultTemplates.
	Templates []string
	// Domain is reported as each sandbox's domain.
	Domain string
	// EnvdVersion is reported as each sandbox's envdVersion (default 0.2.10).
	EnvdVersion string
	// Now is the clock; tests move it to make timeouts expire.
	Now func() time.Time
	// TokenNow is the clock of traffic tokens, which clients compare with
	// their own: the emulator's, run faster (--time-scale), would give
	// tokens they think valid after the gateway's expiry. nil is Now.
	TokenNow func() time.Time
	// KeepRequests keeps every request, its body included, for Requests,
	// and makes the gateway's servers in each sandbox keep theirs: tests
	// set it. A running emulator keeps nothing per request past its
	// answer, whatever a client sends it (docs/emulator.md, "Who it
	// serves").
	KeepRequests bool
	// TrafficTokenValidity is how long the traffic tokens of sandboxes
	// that opt in (JWTAuthKey) are valid; 0 is the cluster's default,
	// DefaultTrafficTokenValidity. Tests give seconds.
	TrafficTokenValidity time.Duration
}

// Sandbox is the fake's record of one sandbox.
type Sandbox struct {
	ID              string
	Template        string
	State           string // running or paused
	StartedAt       time.Time
	EndAt           time.Time
	AutoPause       bool
	AllowInternet   bool
	Metadata        map[string]string
	EnvVars         map[string]string
	EnvdAccessToken string
	// Guarded sandboxes opted in to traffic tokens (JWTAuthKey): the
	// gateway lets a request for their ports through only with a valid
	// one. TrafficToken is the newest issued, until TrafficTokenExpiry.
	Guarded            bool
	TrafficToken       string
	TrafficTokenExpiry time.Time
	// Network is the egress rules the sandbox was given, nil for none.
	// The emulator keeps and tells them; it does not apply them
	// (docs/emulator.md).
	Network *e2bapi.Network
	// FromSnapshot is the snapshot a clone was made from ("" for a
	// sandbox made from a template).
	FromSnapshot string
	seq          int // creation order, for stable pages
}

// Request is one request as the fake received it.
type Request struct {
	Method string
	Host   string
	Path   string
	Query  string
	Header http.Header
	Body   string
}

// Server is the fake sandbox-manager. It is an http.Handler.
type Server struct {
	opts  Options
	mux   *http.ServeMux
	mu    sync.Mutex
	boxes map[string]*Sandbox
	seq   int
	logMu sync.Mutex
	log   []Request
	// signKey signs the traffic tokens; it never leaves the server.
	signKey []byte
	// snaps are the snapshots taken, by ID; dropped those expired whose
	// files the store has yet to drop.
	snaps   map[string]*Snapshot
	snapSeq int
	dropped []string
	// store keeps the snapshots' files (KeepSnapshots); nil keeps none,
	// and the routes are answered still.
	store SnapshotStore

	// Events are queued under mu, in the order of the changes, and handed
	// to OnEvent after mu is released by whoever holds deliverMu.
	pending   []event // queued, not yet taken for delivery
	queued    uint64  // events ever queued
	deliverMu sync.Mutex

	// OnEvent, when set, hears of every change: created, paused, resumed,
	// killed, expired, and timeout (a new deadline); snapshot (taken, of
	// the sandbox whose ID it is given) and snapshot-deleted (deleted or
	// expired, with no sandbox). It is called without
	// the server's lock, one event at a time, in the order of the changes.
	// A call that made a change (a request, or Expire, Sandboxes and
	// Restore when they expire sandboxes) returns only after OnEvent has
	// heard of it and of every earlier change, so while OnEvent runs, other
	// changes wait: it should be quick. Calls that change nothing do not
	// wait. It must not call back into the server.
	OnEvent func(event string, s Sandbox)
}

type event struct {
	name string
	box  Sandbox
}

// New returns a fake with no sandboxes.
func New(opts Options) *Server {
	if len(opts.Templates) == 0 {
		opts.Templates = DefaultTemplates
	}
	if opts.EnvdVersion == "" {
		opts.EnvdVersion = "0.2.10"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, boxes: map[string]*Sandbox{}, snaps: map[string]*Snapshot{}, mux: http.NewServeMux(), signKey: make([]byte, 32)}
	_, _ = rand.Read(s.signKey)
	s.routes()
	return s
}

// Domain is the domain the server reports as each sandbox's.
func (s *Server) Domain() string { return s.opts.Domain }

// ServeHTTP logs the request and serves it. A request without the key is
// answered from its headers alone: its body is neither read nor logged,
// and the connection closes after the answer, so that a client sending
// the body a byte at a time holds nothing (docs/emulator.md, "Who it
// serves"). Go's server would otherwise read what is left of a small
// body before it answers, and again before it lets the connection go.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	keyed := s.keyed(r)
	if s.opts.KeepRequests {
		s.record(r, keyed)
	}
	if keyed || r.ContentLength == 0 {
		s.mux.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Connection", "close")
	s.mux.ServeHTTP(w, r)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	_ = rc.SetReadDeadline(time.Now())
}

// keyed tells whether r carries the server's key.
func (s *Server) keyed(r *http.Request) bool {
	return s.opts.APIKey != "" && r.Header.Get("X-API-Key") == s.opts.APIKey
}

// KeepsRequests tells whether the server, and the servers in its
// sandboxes, keep the requests they serve.
func (s *Server) KeepsRequests() bool { return s.opts.KeepRequests }

// Requests returns a copy of the request log. Asked of a server that
// keeps none, it panics: a test would otherwise see no request, and pass
// for the wrong reason.
func (s *Server) Requests() []Request {
	if !s.opts.KeepRequests {
		panic("manager: the requests of a server that keeps none; set Options.KeepRequests")
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]Request(nil), s.log...)
}

// ResetLog forgets the requests received so far.
func (s *Server) ResetLog() {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.log = nil
}

// Sandboxes returns a snapshot of the sandboxes, oldest first.
func (s *Server) Sandboxes() []Sandbox {
	mark := s.lock()
	s.expireLocked()
	out := make([]Sandbox, 0, len(s.boxes))
	for _, b := range s.sortedLocked() {
		out = append(out, *b)
	}
	s.unlock(mark)
	return out
}

// Restore adds sandboxes saved from an earlier run, in order, as if they
// had just been created (OnEvent hears "created" for each), then expires
// those whose deadline passed meanwhile.
func (s *Server) Restore(list []Sandbox) {
	mark := s.lock()
	for _, b := range list {
		if b.State != "running" && b.State != "paused" {
			continue
		}
		s.seq++
		b.seq = s.seq
		s.boxes[b.ID] = &b
		s.emitLocked("created", b)
	}
	s.expireLocked()
	s.unlock(mark)
}

// Expire applies timeouts that have passed: sandboxes are killed, or paused
// when created with autoPause.
func (s *Server) Expire() {
	mark := s.lock()
	s.expireLocked()
	s.unlock(mark)
	s.dropExpired()
}

func (s *Server) expireLocked() {
	now := s.opts.Now()
	s.expireSnapshotsLocked(now)
	for id, b := range s.boxes {
		if b.State != "running" || b.EndAt.IsZero() || b.EndAt.After(now) {
			continue
		}
		if b.AutoPause {
			b.State, b.EndAt = "paused", now.Add(pausedFor)
			s.emitLocked("paused", *b)
			continue
		}
		delete(s.boxes, id)
		s.emitLocked("expired", *b)
	}
}

// lock takes s.mu for a change that may queue events; unlock with what it
// returns.
func (s *Server) lock() (mark uint64) {
	s.mu.Lock()
	return s.queued
}

// emitLocked queues an event for OnEvent; the caller holds s.mu, taken by
// lock.
func (s *Server) emitLocked(name string, b Sandbox) {
	s.pending = append(s.pending, event{name: name, box: b})
	s.queued++
}

// unlock releases s.mu and, when the caller queued events since lock
// returned mark, waits until OnEvent has heard them and every earlier one,
// delivering them itself unless another call is at it. A caller that
// queued nothing does not wait for anybody's events.
func (s *Server) unlock(mark uint64) {
	upTo := s.queued
	s.mu.Unlock()
	if upTo == mark {
		return
	}
	// One deliverer at a time keeps the order; it holds deliverMu while it
	// takes events from pending and hands them to OnEvent.
	s.deliverMu.Lock()
	defer s.deliverMu.Unlock()
	for {
		s.mu.Lock()
		// All but pending are heard (or lost, if OnEvent panicked).
		if s.queued-uint64(len(s.pending)) >= upTo {
			s.mu.Unlock()
			return
		}
		batch := s.pending
		s.pending = nil
		s.mu.Unlock()
		for _, ev := range batch {
			if s.OnEvent != nil {
				s.OnEvent(ev.name, ev.box)
			}
		}
	}
}

func (s *Server) sortedLocked() []*Sandbox {
	list := make([]*Sandbox, 0, len(s.boxes))
	for _, b := range s.boxes {
		list = append(list, b)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].seq < list[j].seq })
	return list
}

func (s *Server) record(r *http.Request, keyed bool) {
	req := Request{Method: r.Method, Host: r.Host, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()}
	if r.Body != nil && keyed {
		body := readBody(r)
		req.Body = string(body)
	}
	s.logMu.Lock()
	s.log = append(s.log, req)
	s.logMu.Unlock()
}

func (s *Server) knownTemplate(t string) bool {
	for _, k := range s.opts.Templates {
		if k == t {
			return true
		}
	}
	return false
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newID makes IDs like the real ones: namespace--template-suffix.
// cloneID is a clone's ID: the prefix of its generated name, then five
// letters.
func cloneID(prefix string) string {
	return "default--" + prefix + letters5()
}

func letters5() string {
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return string(b)
}

func newID(template string) string {
	return "default--" + strings.ToLower(template) + "-" + letters5()
}
