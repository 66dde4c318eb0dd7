//go:build unix

// Package envd is a faithful stand-in for E2B's envd daemon
// (docs/protocol.md, "envd: processes and files" and "envd versions"):
// the process and filesystem services served from our generated Connect
// handlers, and /files. It runs real local processes in a scratch
// directory and imitates the version it is told to be, 0.2.10 by default:
// no default user, no stdin flag, missing commands as RPC errors.
package envd

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/reqlog"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

// Options configure a fake envd.
type Options struct {
	// Root is the sandbox's directory on this machine: its /home/user,
	// /tmp, /var/tmp and /root are Root/home/user, Root/tmp, ...
	Root string
	// Version is the envd version to imitate (default 0.2.10).
	Version string
	// AccessToken, when set, must come in X-Access-Token.
	AccessToken string
	// Env is added to every process's environment.
	Env map[string]string
	// Isolated runs processes in the sandbox's view (package jail);
	// otherwise they run on this machine, in the sandbox's directories.
	Isolated bool
	// NoInternet keeps an isolated sandbox's network to its loopback
	// alone: a sandbox created without internet access. Any other
	// isolated sandbox's connections out are carried from this machine's
	// network under its egress rules (Network). Without isolation a
	// sandbox shares this machine's network whatever these say
	// (docs/emulator.md).
	NoInternet bool
	// Network is the sandbox's egress rules at its start (SetNetwork
	// changes them); nil for none.
	Network *e2bapi.Network
	// Lowers are the directories of the snapshots an isolated clone
	// stands on, the nearest first: its box lays its own directories
	// over theirs (jail.BoxSpec.Lowers), and the files API reaches them
	// through its box.
	Lowers []string
	// Hide are directories of this machine the sandbox sees empty: the
	// emulator's state, which holds the other sandboxes.
	Hide []string
	// KeepRequests keeps every request's method, path and headers for
	// Requests: tests set it; a running emulator keeps nothing.
	KeepRequests bool
}

// Request is one request as the fake received it.
type Request = reqlog.Request

// Server is a fake envd. It is an http.Handler.
type Server struct {
	opts    Options
	version envd.Version
	mux     *http.ServeMux
	procs   *processes
	view    *view

	// jail is the sandbox's box, once a command started it (isolated
	// sandboxes only), started when jailAt says; closed says the sandbox
	// is gone.
	// rules are the egress rules in force (SetNetwork).
	rules atomic.Pointer[e2bapi.Network]

	boxMu  sync.Mutex
	jail   *jail.Box
	jailAt time.Time
	closed bool

	// meter keeps the last CPU sample, for /metrics.
	meter cpuMeter

	// watchers are the polling watches (CreateWatcher).
	watchers watchers

	log reqlog.Log
}

// New returns a fake envd for the sandbox directory opts.Root, making
// the sandbox's own directories there (Prepare).
func New(opts Options) *Server {
	if opts.Version == "" {
		opts.Version = "0.2.10"
	}
	// Prepared first, so that the view finds the directory's real path.
	_ = Prepare(opts.Root, opts.Isolated) // a directory missing shows in the calls that need it
	s := &Server{opts: opts, version: envd.ParseVersion(opts.Version), mux: http.NewServeMux(),
		view: newView(opts.Root, opts.Hide, opts.Isolated, len(opts.Lowers) > 0)}
	s.log.Keep = opts.KeepRequests
	s.rules.Store(opts.Network)
	if root, err := os.OpenRoot(opts.Root); err == nil {
		s.view.root = root
	}
	s.procs = newProcesses(s)
	s.meter.start()
	path, h := processconnect.NewProcessHandler(&processService{s: s})
	s.mux.Handle(path, h)
	path, h = filesystemconnect.NewFilesystemHandler(&filesystemService{s: s})
	s.mux.Handle(path, h)
	s.mux.HandleFunc("GET /files", s.download)
	s.mux.HandleFunc("POST /files", s.upload)
	s.mux.HandleFunc("GET /metrics", s.metrics)
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return s
}

// ServeHTTP logs the request, checks the access token and serves it. A
// rejected token is a plain HTTP 401 with envd's JSON, not a Connect error.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.log.Record(r)
	if s.opts.AccessToken != "" && r.Header.Get("X-Access-Token") != s.opts.AccessToken {
		// Answered from the headers: the body is not read, and the
		// connection closes after the answer, so that a slow body holds
		// nothing (docs/emulator.md, "Who it serves").
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]any{"code": 401, "message": "unauthorized access, please provide a valid access token or method signing if supported"})
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		_ = rc.SetReadDeadline(time.Now())
		return
	}
	batched(s.mux, w, r)
}

// Requests returns a copy of the request log.
func (s *Server) Requests() []Request { return s.log.Requests() }

// Close kills every process of the sandbox and waits, a few seconds at
// most, until they are gone: its box, with everything in it however it
// detached, or (without isolation) the processes of the sessions its
// commands lead.
func (s *Server) Close() {
	s.boxMu.Lock()
	b := s.jail
	s.closed = true
	s.boxMu.Unlock()
	if b != nil {
		b.Kill()
	}
	s.watchers.closeAll()
	s.procs.killAll()
	s.procs.wait(5 * time.Second)
	if b := s.view.box.Swap(nil); b != nil {
		_ = b.root.Close()
	}
	if s.view.root != nil {
		_ = s.view.root.Close()
	}
}

// Pause freezes every process of the sandbox, as a paused sandbox's are:
// its box, all at once where a cgroup can, else each of its processes;
// without isolation, the processes of the sessions its commands lead.
func (s *Server) Pause() {
	if b := s.currentBox(); b != nil {
		_ = b.Freeze()
		return
	}
	s.procs.signalAll(sigStop)
}

// Resume lets the processes Pause froze go on; a sandbox restored paused,
// which has no box yet, boots one.
func (s *Server) Resume() {
	if b := s.currentBox(); b != nil {
		_ = b.Thaw()
		return
	}
	s.procs.signalAll(sigCont)
	s.Boot()
}

func (s *Server) currentBox() *jail.Box {
	s.boxMu.Lock()
	defer s.boxMu.Unlock()
	return s.jail
}

// userOf reads the Basic user; "" when none was sent.
func userOf(h http.Header) string {
	a := h.Get("Authorization")
	raw, ok := strings.CutPrefix(a, "Basic ")
	if !ok {
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return ""
	}
	user, _, _ := strings.Cut(string(b), ":")
	return user
}
