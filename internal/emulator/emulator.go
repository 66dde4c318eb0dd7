//go:build unix

// Package emulator is abx's embedded default: a sandbox-manager on one
// loopback origin, so the whole CLI works on one machine without a cluster,
// for first steps and for testing scripts.
package emulator

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/emulator/record"
)

// Options configure an emulator.
type Options struct {
	// Addr is the loopback address to listen on; port 0 picks a free one.
	Addr string
	// APIKey is the key clients must send; empty reuses the state dir's
	// key, or generates one.
	APIKey string
	// Templates are the names sandboxes can be created from.
	Templates []string
	// StateDir keeps the sandboxes (records and directories) across
	// restarts; empty uses a temporary one, removed at Close.
	StateDir string
	// EnvdVersion is the envd version sandboxes imitate (default 0.2.10).
	EnvdVersion string
	// TimeScale runs the emulator's clock faster than real time: at 30, a
	// sandbox's 30 s timeout passes in one real second. It exists to test
	// scripts that wait for expiry; 0 means 1.
	TimeScale float64
	// Isolation is IsolationAuto (the default), IsolationNamespaces or
	// IsolationNone.
	Isolation string
	// TrafficTokenValidity is how long the traffic tokens of sandboxes
	// that opt in (manager.JWTAuthKey) are valid; 0 is the cluster's
	// default.
	TrafficTokenValidity time.Duration
	// KeepRequests keeps what the emulator serves for its tests to read
	// (manager.Options.KeepRequests); a user's emulator keeps nothing.
	KeepRequests bool
}

// Emulator is a running emulator.
type Emulator struct {
	APIKey   string
	URL      string // http://127.0.0.1:PORT
	StateDir string
	Manager  *manager.Server
	Gateway  *Gateway
	// Isolated says whether sandboxes have views of their own; when not,
	// NotIsolated says why.
	Isolated    bool
	NotIsolated string

	srv       *http.Server
	served    chan struct{} // closed when the server stops serving
	serveErr  error         // why, once served is closed
	state     *stateDir     // nil for a temporary state dir
	dirty     chan struct{}
	stop      chan struct{}
	loopDone  chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// How often timeouts are applied without a request asking.
const expireEvery = 100 * time.Millisecond

// Start listens on a loopback address and serves until Close.
func Start(opts Options) (*Emulator, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, addrError(fmt.Errorf("invalid address %q: %w", opts.Addr, err))
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, addrError(fmt.Errorf("address %q is not a loopback address: the emulator serves this machine only", opts.Addr))
	}
	isolated, why, err := decideIsolation(opts.Isolation)
	if err != nil {
		return nil, err
	}
	var st *stateDir
	dir := opts.StateDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "abx-emulator-"); err != nil {
			return nil, err
		}
	} else {
		// Absolute and without links: sandboxes must not see it, and the
		// files API hides it by comparing paths.
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			dir = resolved
		}
		if st, err = openStateDir(dir); err != nil {
			return nil, stateDirError(err)
		}
		if opts.APIKey == "" {
			opts.APIKey = st.apiKey()
		}
	}
	if opts.APIKey == "" {
		opts.APIKey = "abx_emu_" + rand.Text()
	}
	fail := func(err error) (*Emulator, error) {
		if st == nil {
			_ = os.RemoveAll(dir)
		}
		return nil, err
	}
	if st != nil {
		if err := st.saveAPIKey(opts.APIKey); err != nil {
			return fail(err)
		}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fail(addrError(err))
	}
	m := manager.New(manager.Options{APIKey: opts.APIKey, Templates: opts.Templates, Now: clock(opts.TimeScale),
		TokenNow: time.Now, TrafficTokenValidity: opts.TrafficTokenValidity, KeepRequests: opts.KeepRequests})
	g := NewGateway(m, filepath.Join(dir, "sandboxes"), opts.EnvdVersion)
	// The whole state dir is out of the sandboxes' sight: it holds the
	// API key and the other sandboxes.
	g.Isolated, g.Hide = isolated, []string{dir}
	e := &Emulator{
		APIKey:   opts.APIKey,
		URL:      "http://" + ln.Addr().String(),
		StateDir: dir,
		Manager:  m,
		Gateway:  g,
		Isolated: isolated, NotIsolated: why,
		// Headers come whole within 10 s; a connection idle between
		// requests goes after 2 minutes (docs/emulator.md, "Who it serves").
		srv: &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
			ErrorLog: log.New(io.Discard, "", 0)}, // a client's own failures are no line of the wrapped program's
		served:   make(chan struct{}),
		state:    st,
		dirty:    make(chan struct{}, 1),
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	gatewayHears := m.OnEvent
	m.OnEvent = func(event string, s manager.Sandbox) {
		gatewayHears(event, s)
		select {
		case e.dirty <- struct{}{}:
		default:
		}
	}
	if st != nil {
		saved, err := st.loadSandboxes()
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
		snaps, err := st.loadSnapshots()
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
		// Snapshots first: a sandbox restored may be a clone of one.
		m.RestoreSnapshots(snaps)
		m.Restore(saved)
		st.removeOrphans(m.Sandboxes())
		st.removeOrphanSnapshots(m.Snapshots(), g.snapshots)
		if err := st.writeRuntime(record.Runtime{URL: e.URL, PID: os.Getpid(), APIKey: e.APIKey, NotIsolated: why}); err != nil {
			_ = ln.Close()
			g.Close()
			return nil, err
		}
	}
	go func() { e.serveErr = e.srv.Serve(ln); close(e.served) }()
	go e.loop()
	return e, nil
}

// clock is the manager's clock, scale times faster than real time.
func clock(scale float64) func() time.Time {
	if scale <= 0 || scale == 1 {
		return time.Now
	}
	start := time.Now()
	return func() time.Time {
		return start.Add(time.Duration(float64(time.Since(start)) * scale))
	}
}

// loop applies timeouts as they pass, as the real service does without
// waiting for a request, and saves the sandboxes after each change.
func (e *Emulator) loop() {
	defer close(e.loopDone)
	tick := time.NewTicker(expireEvery)
	defer tick.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-tick.C:
			e.Manager.Expire()
		case <-e.dirty:
			e.save()
		}
	}
}

func (e *Emulator) save() {
	if e.state != nil {
		_ = e.state.saveSandboxes(e.Manager.Sandboxes())
		_ = e.state.saveSnapshots(e.Manager.Snapshots())
	}
}

// Env is the environment that points abx at this emulator: the private
// protocol over its plain-HTTP origin.
func (e *Emulator) Env() []string { return record.Env(e.URL, e.APIKey) }

// Done is closed when the emulator stops serving: Close, or a failure of
// its server.
func (e *Emulator) Done() <-chan struct{} { return e.served }

// Close stops serving, saves the sandboxes, stops every process the
// sandboxes started and waits for them, and removes a temporary state dir.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() {
		// Shutdown stops accepting and lets short requests finish; streams
		// (exec, run-code) last as long as their processes, so those are
		// stopped next and the connections closed.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := e.srv.Shutdown(ctx)
		cancel()
		if err != nil {
			e.Gateway.Close()
			err = e.srv.Close()
		}
		if <-e.served; !errors.Is(e.serveErr, http.ErrServerClosed) && err == nil {
			err = e.serveErr
		}
		close(e.stop)
		<-e.loopDone
		e.save()
		e.Gateway.Close()
		// The inits started ahead of sandboxes go too: nothing of the
		// emulator's outlives its Close.
		jail.DropSpares()
		if e.state != nil {
			e.state.removeRuntime()
		} else {
			_ = os.RemoveAll(e.StateDir)
		}
		e.closeErr = err
	})
	return e.closeErr
}
