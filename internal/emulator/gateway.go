//go:build unix

package emulator

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/emulator/envd"
	"github.com/abx-dev/abx/internal/emulator/jupyter"
	"github.com/abx-dev/abx/internal/emulator/manager"
	envdclient "github.com/abx-dev/abx/internal/envd"
)

// Ports of the servers inside a sandbox.
const (
	EnvdPort            = envdclient.Port
	CodeInterpreterPort = codeinterp.Port
)

// Gateway is the sandbox gateway on one origin: the sandbox-manager API
// (both path sets) and each sandbox's data plane, reached as
// /kruise/{id}/{port}/..., by the E2b-Sandbox-Id/E2b-Sandbox-Port headers,
// or by a {port}-{id}.{domain} host, as the real gateway routes them.
type Gateway struct {
	Manager *manager.Server
	// Isolated runs each sandbox's processes in a view of its own
	// (package jail); set it before the first sandbox is created.
	Isolated bool
	// Hide are directories of this machine sandboxes see empty; the
	// sandboxes' directory always is.
	Hide []string

	dir     string
	version string

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
// envd of that version.
func NewGateway(m *manager.Server, dir, envdVersion string) *Gateway {
	g := &Gateway{Manager: m, dir: dir, version: envdVersion,
		boxes: map[string]*box{}, teardowns: map[*box]chan struct{}{}}
	m.OnEvent = g.onEvent
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
		e := envd.New(envd.Options{Root: filepath.Join(g.dir, s.ID), Version: g.version,
			AccessToken: s.EnvdAccessToken, Env: s.EnvVars, Isolated: g.Isolated, Hide: append([]string{g.dir}, g.Hide...)})
		b := &box{envd: e}
		if strings.Contains(s.Template, "code-interpreter") {
			// Its kernels run as envd's processes do: the same view, the
			// same user, the same environment.
			b.jupyter = jupyter.New(jupyter.Options{
				Command: func(dir string, argv []string, extra []*os.File) (*exec.Cmd, error) {
					return e.Command(envd.User, dir, argv, nil, extra)
				},
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
}

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, port, rest, ok := route(r)
	if !ok {
		g.Manager.ServeHTTP(w, r)
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
		http.Error(w, "sandbox not found: "+id, http.StatusBadGateway)
		return
	case paused:
		http.Error(w, "healthy sandbox not found: "+id, http.StatusBadGateway)
		return
	}
	var h http.Handler
	switch {
	case port == EnvdPort:
		h = b.envd
	case port == CodeInterpreterPort && b.jupyter != nil:
		h = b.jupyter
	case port == CodeInterpreterPort:
		http.Error(w, "nothing listens on port "+strconv.Itoa(port)+" of sandbox "+id, http.StatusBadGateway)
		return
	default:
		h = loopback(id, port)
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = rest, ""
	h.ServeHTTP(w, r2)
}

// loopback reaches a server a sandbox process started: sandboxes share
// this machine's network (docs/emulator.md), so port N of a sandbox is
// 127.0.0.1:N here. Streams and upgrades (WebSocket) pass through.
func loopback(id string, port int) http.Handler {
	target := &url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	return &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			http.Error(w, "nothing listens on port "+strconv.Itoa(port)+" of sandbox "+id, http.StatusBadGateway)
		},
	}
}

// route finds the sandbox and port a data-plane request is for.
func route(r *http.Request) (id string, port int, rest string, ok bool) {
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
	if id := r.Header.Get("E2b-Sandbox-Id"); id != "" {
		n, err := strconv.Atoi(r.Header.Get("E2b-Sandbox-Port"))
		return id, n, r.URL.Path, err == nil
	}
	host := r.Host
	if h, _, found := strings.Cut(host, ":"); found {
		host = h
	}
	if label, _, found := strings.Cut(host, "."); found {
		if p, sid, found := strings.Cut(label, "-"); found {
			if n, err := strconv.Atoi(p); err == nil {
				return sid, n, r.URL.Path, true
			}
		}
	}
	return "", 0, "", false
}
