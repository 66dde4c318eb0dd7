package emulator

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/abx-dev/abx/internal/emulator/envd"
	"github.com/abx-dev/abx/internal/emulator/manager"
)

// Ports of the servers inside a sandbox.
const (
	EnvdPort            = 49983
	CodeInterpreterPort = 49999
)

// Gateway is the sandbox gateway on one origin: the sandbox-manager API
// (both path sets) and each sandbox's data plane, reached as
// /kruise/{id}/{port}/..., by the E2b-Sandbox-Id/E2b-Sandbox-Port headers,
// or by a {port}-{id}.{domain} host, as the real gateway routes them.
type Gateway struct {
	Manager *manager.Server
	dir     string
	version string

	mu    sync.Mutex
	boxes map[string]*box
}

type box struct {
	envd   *envd.Server
	paused bool
}

// NewGateway serves m, giving each sandbox a directory under dir and a fake
// envd of that version.
func NewGateway(m *manager.Server, dir, envdVersion string) *Gateway {
	g := &Gateway{Manager: m, dir: dir, version: envdVersion, boxes: map[string]*box{}}
	m.OnEvent = g.onEvent
	return g
}

func (g *Gateway) onEvent(event string, s manager.Sandbox) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch event {
	case "created":
		root := filepath.Join(g.dir, s.ID)
		_ = os.MkdirAll(filepath.Join(root, "home", "user"), 0o755)
		_ = os.MkdirAll(filepath.Join(root, "tmp"), 0o755)
		g.boxes[s.ID] = &box{envd: envd.New(envd.Options{
			Root: root, Version: g.version, AccessToken: s.EnvdAccessToken, Env: s.EnvVars})}
	case "paused":
		if b := g.boxes[s.ID]; b != nil {
			b.paused = true
			b.envd.Pause()
		}
	case "resumed":
		if b := g.boxes[s.ID]; b != nil {
			b.paused = false
			b.envd.Resume()
		}
	case "killed", "expired":
		if b := g.boxes[s.ID]; b != nil {
			b.envd.Close()
			delete(g.boxes, s.ID)
			_ = os.RemoveAll(filepath.Join(g.dir, s.ID))
		}
	}
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

// Close kills every process of every sandbox.
func (g *Gateway) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, b := range g.boxes {
		b.envd.Close()
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
	g.mu.Unlock()
	switch {
	case b == nil:
		http.Error(w, "sandbox "+id+" not found", http.StatusBadGateway)
		return
	case b.paused:
		// A paused sandbox has no running servers: the gateway answers 502.
		http.Error(w, "sandbox "+id+" is paused", http.StatusBadGateway)
		return
	case port != EnvdPort:
		http.Error(w, "nothing listens on port "+strconv.Itoa(port)+" of sandbox "+id, http.StatusBadGateway)
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = rest, ""
	b.envd.ServeHTTP(w, r2)
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
