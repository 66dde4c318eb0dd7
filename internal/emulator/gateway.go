//go:build unix

package emulator

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/emulator/envd"
	"github.com/abx-dev/abx/internal/emulator/jupyter"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/emulator/spawn"
	"github.com/abx-dev/abx/internal/loopback"
	"github.com/abx-dev/abx/internal/provider"
)

// Ports of the servers inside a sandbox.
const (
	EnvdPort            = provider.EnvdPort
	CodeInterpreterPort = provider.CodeInterpreterPort
)

// DefaultMaxForwards bounds the requests the gateway forwards to servers
// sandboxes started at once (docs/emulator.md, "Who it serves"): each
// holds two descriptors, so the bound keeps them within half of the 1024
// a default soft limit gives, while a browser, which opens six
// connections a host, stays far below it with dozens of tabs.
const DefaultMaxForwards = 256

// Gateway is the sandbox gateway on one origin: the sandbox-manager API
// (both path sets) and each sandbox's data plane, reached as
// /kruise/{id}/{port}/..., by the E2b-Sandbox-Id/E2b-Sandbox-Port headers,
// or by a {port}-{id}.{domain} host, as the real gateway routes them.
// It serves this machine's clients only: a Host of this machine or of the
// manager's domain, and no page elsewhere (docs/emulator.md, "Who it
// serves").
type Gateway struct {
	Manager *manager.Server
	// Isolated runs each sandbox's processes in a view of its own
	// (package jail); set it before the first sandbox is created.
	Isolated bool
	// Hide are directories of this machine sandboxes see empty; the
	// sandboxes' directory always is.
	Hide []string
	// MaxForwards bounds the requests forwarded to sandboxes' own servers
	// at once; 0 is DefaultMaxForwards.
	MaxForwards int

	dir     string
	version string
	// snapshots keeps the snapshots' files.
	snapshots *snapshotStore

	// guard refuses the requests of other machines' names and pages.
	guard http.Handler
	// hop marks what the gateway forwards, to know it when it comes back.
	hop loopback.Hop
	// forwards serves, at most MaxForwards at once, the requests for
	// servers sandboxes started; made at the first.
	forwardsOnce sync.Once
	forwards     http.Handler
	// toSandboxes keeps the forwards' idle connections, let go on Close.
	toSandboxes *http.Transport

	// mu guards the maps only: nothing slow (stopping processes) runs
	// while it is held, so requests never wait on another sandbox.
	mu    sync.Mutex
	boxes map[string]*box
	// teardowns of killed and expired sandboxes still stopping their
	// processes, closed when done; Close waits for them.
	teardowns map[*box]chan struct{}
}

type box struct {
	envd    *envd.Server
	jupyter *jupyter.Server // code-interpreter templates only
	paused  bool            // guarded by Gateway.mu
}

// close kills everything running in the sandbox and waits, a few seconds
// at most, until it is gone.
func (b *box) close() {
	b.envd.Close()
	if b.jupyter != nil {
		b.jupyter.Close()
	}
}

// NewGateway serves m, giving each sandbox a directory under dir and a fake
// envd of that version; the snapshots it takes are kept beside dir.
func NewGateway(m *manager.Server, dir, envdVersion string) *Gateway {
	g := &Gateway{Manager: m, dir: dir, version: envdVersion, hop: loopback.NewHop(),
		boxes: map[string]*box{}, teardowns: map[*box]chan struct{}{}}
	g.guard = loopback.Names{m.Domain()}.Guard(http.HandlerFunc(g.serve))
	g.toSandboxes = &http.Transport{DialContext: g.dialSandbox, MaxIdleConnsPerHost: 8, IdleConnTimeout: 90 * time.Second}
	m.OnEvent = g.onEvent
	// The snapshots' files beside the sandboxes' (the state dir's
	// snapshots/ for an emulator's).
	g.snapshots = &snapshotStore{g: g, dir: filepath.Join(filepath.Dir(dir), "snapshots")}
	m.KeepSnapshots(g.snapshots)
	return g
}

// onEvent keeps the sandboxes' servers in step with the manager. The
// manager waits for it, and every request after it with a change to
// report, so it does nothing slow: a killed sandbox leaves the map at
// once (its data plane answers 502 from then on), and its processes are
// stopped and its directory removed in the background.
func (g *Gateway) onEvent(event string, s manager.Sandbox) {
	switch event {
	case "created":
		keep := g.Manager.KeepsRequests()
		e := envd.New(envd.Options{Root: filepath.Join(g.dir, s.ID), Version: g.version,
			AccessToken: s.EnvdAccessToken, Env: s.EnvVars, Isolated: g.Isolated, Hide: append([]string{g.dir}, g.Hide...),
			NoInternet: !s.AllowInternet, Network: s.Network, KeepRequests: keep, Lowers: g.snapshots.lowers(s.ID)})
		b := &box{envd: e}
		if strings.Contains(s.Template, "code-interpreter") {
			// Its kernels run as envd's processes do: the same view, the
			// same user, the same environment.
			b.jupyter = jupyter.New(jupyter.Options{
				Command: func(dir string, argv []string) (*spawn.Cmd, error) {
					return e.Command(envd.User, dir, argv, nil)
				},
				KeepRequests: keep,
			})
		}
		// A sandbox restored paused has nothing running to stop, and boots
		// when it is resumed.
		b.paused = s.State == "paused"
		if !b.paused {
			e.Boot()
		}
		g.mu.Lock()
		g.boxes[s.ID] = b
		g.mu.Unlock()
	case "network":
		if e := g.Envd(s.ID); e != nil {
			e.SetNetwork(s.Network)
		}
	case "paused":
		// Requests stop reaching the processes before they stop.
		if b := g.setPaused(s.ID, true); b != nil {
			b.envd.Pause()
			if b.jupyter != nil {
				b.jupyter.Pause()
			}
		}
	case "resumed":
		// The processes go on before requests reach them again.
		g.mu.Lock()
		b := g.boxes[s.ID]
		g.mu.Unlock()
		if b != nil {
			b.envd.Resume()
			if b.jupyter != nil {
				b.jupyter.Resume()
			}
			g.setPaused(s.ID, false)
		}
	case "killed", "expired":
		g.mu.Lock()
		b := g.boxes[s.ID]
		delete(g.boxes, s.ID)
		done := make(chan struct{})
		if b != nil {
			g.teardowns[b] = done
		}
		g.mu.Unlock()
		if b == nil {
			return
		}
		go func() {
			b.close()
			_ = os.RemoveAll(filepath.Join(g.dir, s.ID))
			// What it stood on may go now.
			g.snapshots.collect()
			g.mu.Lock()
			delete(g.teardowns, b)
			g.mu.Unlock()
			close(done)
		}()
	}
}

// setPaused marks a sandbox paused or running and returns it, nil when it
// is gone. The gateway answers 502 for a paused sandbox.
func (g *Gateway) setPaused(id string, paused bool) *box {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.boxes[id]
	if b != nil {
		b.paused = paused
	}
	return b
}

// Envd returns the fake envd of a sandbox, for tests that inspect it.
func (g *Gateway) Envd(id string) *envd.Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b := g.boxes[id]; b != nil {
		return b.envd
	}
	return nil
}

// Jupyter returns the fake code interpreter of a sandbox, nil when its
// template has none.
func (g *Gateway) Jupyter(id string) *jupyter.Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b := g.boxes[id]; b != nil {
		return b.jupyter
	}
	return nil
}

// Close kills every process of every sandbox, and returns when they are
// gone (a few seconds at most) and the teardowns of killed sandboxes have
// finished.
func (g *Gateway) Close() {
	g.mu.Lock()
	boxes := make([]*box, 0, len(g.boxes))
	for _, b := range g.boxes {
		boxes = append(boxes, b)
	}
	teardowns := make([]chan struct{}, 0, len(g.teardowns))
	for _, done := range g.teardowns {
		teardowns = append(teardowns, done)
	}
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, b := range boxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.close()
		}()
	}
	wg.Wait()
	for _, done := range teardowns {
		<-done
	}
	g.toSandboxes.CloseIdleConnections()
}

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) { g.guard.ServeHTTP(w, r) }

func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) {
	if g.hop.Seen(r.Header) {
		loopback.Refuse(w, http.StatusLoopDetected, "loop detected: this request came back to this gateway, which forwarded it")
		return
	}
	id, port, rest, ok := route(r)
	if !ok {
		g.Manager.ServeHTTP(w, r)
		return
	}
	if disagree(r, id, port) {
		loopback.Refuse(w, http.StatusBadRequest, "the request names two sandbox ports (its path, its E2b-Sandbox-Id and -Port headers, its Host): name one")
		return
	}
	g.Manager.Expire()
	g.mu.Lock()
	b := g.boxes[id]
	paused := b != nil && b.paused
	g.mu.Unlock()
	// The words of OpenKruise's sandbox-gateway (docs/protocol.md,
	// "Ports"): a sandbox it has no route for, and one whose route is not
	// running (paused: nothing in it runs, and nothing resumes it but the
	// API).
	switch {
	case b == nil:
		loopback.Refuse(w, http.StatusBadGateway, "sandbox not found: "+id)
		return
	case paused:
		loopback.Refuse(w, http.StatusBadGateway, "healthy sandbox not found: "+id)
		return
	}
	// A guarded sandbox's ports need its traffic token, on every port, as
	// the sandbox-gateway checks it; the token goes no further.
	guarded, err := g.Manager.CheckTrafficToken(id, r.Header.Get(trafficHeader))
	if err != nil {
		loopback.Refuse(w, http.StatusForbidden, err.Error()+" for sandbox "+id)
		return
	}
	var h http.Handler
	switch {
	case port == EnvdPort:
		h = b.envd
	case port == CodeInterpreterPort && b.jupyter != nil:
		h = b.jupyter
	case port == CodeInterpreterPort:
		loopback.Refuse(w, http.StatusBadGateway, "nothing listens on port "+strconv.Itoa(port)+" of sandbox "+id)
		return
	case !b.envd.OwnNetwork() && ownPort(r, port):
		loopback.Refuse(w, http.StatusLoopDetected, "loop detected: port "+strconv.Itoa(port)+" of sandbox "+id+" leads back to this gateway")
		return
	default:
		r = r.WithContext(context.WithValue(r.Context(), forwardKey{}, forwardTo{id: id, port: port}))
		h = g.forwarder()
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = rest, ""
	if guarded {
		r2.Header.Del(trafficHeader)
	}
	h.ServeHTTP(w, r2)
}

// ownPort tells whether port is that of the listener r came in on: port N
// of a sandbox is this machine's, and a forward there would come straight
// back, for ever.
func ownPort(r *http.Request, port int) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	_, p, err := net.SplitHostPort(addr.String())
	return err == nil && p == strconv.Itoa(port)
}

// trafficHeader carries a sandbox's traffic token to the gateway.
const trafficHeader = e2bapi.TrafficTokenHeader

// forwardTo is the sandbox port a forwarded request is for.
type forwardTo struct {
	id   string
	port int
}

type forwardKey struct{}

// forwarder reaches a server a sandbox process started: port N of a
// sandbox is 127.0.0.1:N of its network, its box's own or this machine's
// (envd.Server.DialPort). Streams and upgrades (WebSocket) pass through.
// Each request it forwards bears the gateway's mark, and at most
// MaxForwards are forwarded at once.
func (g *Gateway) forwarder() http.Handler {
	g.forwardsOnce.Do(func() {
		target := func(r *http.Request) forwardTo { return r.Context().Value(forwardKey{}).(forwardTo) }
		proxy := &httputil.ReverseProxy{
			// The sandbox's ID is the host the transport dials, so that a
			// connection kept for one sandbox's port never carries a
			// request for another's; the Host the server sees is the
			// loopback's, as before.
			Transport: g.toSandboxes,
			// A body cut while it is copied (a sandbox killed under a
			// stream) reaches the client as the cut itself; Go's standard
			// logger would write it into the stderr of the program the
			// emulator wraps.
			ErrorLog: log.New(io.Discard, "", 0),
			Rewrite: func(pr *httputil.ProxyRequest) {
				to := target(pr.In)
				pr.SetURL(&url.URL{Scheme: "http", Host: net.JoinHostPort(to.id, strconv.Itoa(to.port))})
				pr.Out.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(to.port))
				g.hop.Mark(pr.Out.Header)
			},
			FlushInterval: -1,
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, _ error) {
				to := target(r)
				http.Error(w, "nothing listens on port "+strconv.Itoa(to.port)+" of sandbox "+to.id, http.StatusBadGateway)
			},
		}
		n := g.MaxForwards
		if n <= 0 {
			n = DefaultMaxForwards
		}
		g.forwards = loopback.NewLimit(n).Handler(loopback.Duplex(proxy))
	})
	return g.forwards
}

// dialSandbox connects to ID:PORT, port PORT of sandbox ID.
func (g *Gateway) dialSandbox(ctx context.Context, _, addr string) (net.Conn, error) {
	id, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return nil, err
	}
	e := g.Envd(id)
	if e == nil {
		return nil, errors.New("sandbox not found: " + id)
	}
	return e.DialPort(ctx, port)
}

// route finds the sandbox and port a data-plane request is for: by its
// path (/kruise/ID/PORT/...), its headers or its Host. A request that
// names more than one, and not the same, is refused (disagree): a client
// routed by its Host to one sandbox's public port could otherwise put
// another's envd in the path, and a forwarder that appends a client's
// path to its own URL rule would be led where it was never sent.
func route(r *http.Request) (id string, port int, rest string, ok bool) {
	hid, hport, byHeader := headerRoute(r)
	nid, nport, byHost := hostRoute(r)
	if p, found := strings.CutPrefix(r.URL.Path, "/kruise/"); found && !strings.HasPrefix(p, "api/") {
		parts := strings.SplitN(p, "/", 3)
		if len(parts) >= 2 {
			if n, err := strconv.Atoi(parts[1]); err == nil {
				rest = "/"
				if len(parts) == 3 {
					rest += parts[2]
				}
				return parts[0], n, rest, true
			}
		}
	}
	if byHeader {
		return hid, hport, r.URL.Path, hport > 0
	}
	if byHost {
		return nid, nport, r.URL.Path, true
	}
	return "", 0, "", false
}

// disagree tells whether a request routed to id and port names another
// sandbox or port in its headers or its Host.
func disagree(r *http.Request, id string, port int) bool {
	if hid, hport, ok := headerRoute(r); ok && (hid != id || hport != port) {
		return true
	}
	if nid, nport, ok := hostRoute(r); ok && (nid != id || nport != port) {
		return true
	}
	return false
}

// headerRoute is the route of the E2b-Sandbox-Id and -Port headers; a
// port that is no number is 0.
func headerRoute(r *http.Request) (string, int, bool) {
	id := r.Header.Get("E2b-Sandbox-Id")
	if id == "" {
		return "", 0, false
	}
	n, _ := strconv.Atoi(r.Header.Get("E2b-Sandbox-Port"))
	return id, n, true
}

// hostRoute is the route of a PORT-ID.domain Host.
func hostRoute(r *http.Request) (string, int, bool) {
	host := r.Host
	if h, _, found := strings.Cut(host, ":"); found {
		host = h
	}
	if label, _, found := strings.Cut(host, "."); found {
		if p, sid, found := strings.Cut(label, "-"); found {
			if n, err := strconv.Atoi(p); err == nil {
				return sid, n, true
			}
		}
	}
	return "", 0, false
}
