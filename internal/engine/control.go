package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// maxBody bounds a control-plane request body.
const maxBody = 1 << 20

func (e *Engine) routes() {
	m := e.mux
	m.HandleFunc("POST /sandboxes", e.create)
	m.HandleFunc("POST /v2/sandboxes", e.create)
	m.HandleFunc("GET /sandboxes", e.list)
	m.HandleFunc("GET /v2/sandboxes", e.list)
	m.HandleFunc("GET /sandboxes/{id}", e.get)
	m.HandleFunc("DELETE /sandboxes/{id}", e.ending(e.svc.Kill))
	m.HandleFunc("POST /sandboxes/{id}/timeout", e.setTimeout)
	m.HandleFunc("POST /sandboxes/{id}/pause", e.pause)
	m.HandleFunc("POST /sandboxes/{id}/resume", e.resume)
	m.HandleFunc("POST /sandboxes/{id}/connect", e.connect)
	m.HandleFunc("POST /v2/sandboxes/{id}/connect", e.connect)
	m.HandleFunc("GET /sandboxes/{id}/metrics", e.metrics)
	m.HandleFunc("GET /sandboxes/metrics", e.metricsOfMany)
	// What this provider cannot do is said, never a silent 404.
	for pattern, capability := range map[string]provider.Capability{
		"/templates":                     provider.TemplatesRead,
		"/templates/":                    provider.TemplatesBuild,
		"/v2/templates":                  provider.TemplatesBuild,
		"/v2/templates/":                 provider.TemplatesBuild,
		"/v3/templates":                  provider.TemplatesBuild,
		"/v3/templates/":                 provider.TemplatesBuild,
		"GET /sandboxes/{id}/logs":       "sandbox.logs",
		"GET /v2/sandboxes/{id}/logs":    "sandbox.logs",
		"POST /sandboxes/{id}/refreshes": "sandbox.refresh",
		"POST /sandboxes/{id}/snapshots": "sandbox.snapshots",
		"/snapshots":                     "sandbox.snapshots",
		"/snapshots/":                    "sandbox.snapshots",
		"/volumes":                       provider.StorageMount,
		"/volumes/":                      provider.StorageMount,
	} {
		m.HandleFunc(pattern, e.unsupported(capability))
	}
}

// unsupported answers a route of E2B's API that no operation of abx's
// has: the provider's capability it would need, E8004, never a silent 404.
func (e *Engine) unsupported(c provider.Capability) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		err := e.svc.Check(c)
		if err == nil {
			// The provider declares it, but abx does not offer it yet.
			err = abxerr.NewUnsupported("abx's engine", string(c))
		}
		e.writeError(w, http.StatusNotImplemented, err)
	}
}

// fail answers an error of the operations with the status abx's server
// gives it (abxerr.HTTPStatus): a sandbox-manager's 409 or 429 as it was.
func (e *Engine) fail(w http.ResponseWriter, err error) {
	e.writeError(w, abxerr.HTTPStatus(err), err)
}

// readBody decodes a JSON body into v; an empty body leaves v as it is.
func (e *Engine) readBody(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		e.writeError(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "invalid request body: %v", err))
		return false
	}
	return true
}

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }

// readTimeout reads the {"timeout": seconds} body of timeout, resume and
// connect; none is 0, the server's default.
func (e *Engine) readTimeout(w http.ResponseWriter, r *http.Request) (time.Duration, bool) {
	var body e2bapi.Timeout
	ok := e.readBody(w, r, &body)
	return seconds(body.Timeout), ok
}

func (e *Engine) create(w http.ResponseWriter, r *http.Request) {
	var body e2bapi.NewSandbox
	if !e.readBody(w, r, &body) {
		return
	}
	req := provider.CreateRequest{Template: body.TemplateID, Timeout: seconds(body.Timeout), Metadata: body.Metadata,
		Env: body.EnvVars, AutoPause: body.AutoPause}
	if body.Lifecycle != nil && body.Lifecycle.OnTimeout == "pause" {
		req.AutoPause = true
	}
	if body.AllowInternetAccess != nil && !*body.AllowInternetAccess {
		req.NoInternet = true
	}
	if req.Template == "" {
		req.Template = "base"
	}
	s, err := e.svc.Create(r.Context(), req)
	if err != nil {
		e.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, e.sandbox(s))
}

func (e *Engine) get(w http.ResponseWriter, r *http.Request) {
	s, err := e.svc.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		e.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, e.sandbox(s))
}

// ending serves kill: the operation (which forgets what was kept of the
// sandbox's ports), then 204; a sandbox that is not there is 404, as
// E2B's API answers a second kill.
func (e *Engine) ending(do func(ctx context.Context, id string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := do(r.Context(), r.PathValue("id")); err != nil {
			e.fail(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
}

func (e *Engine) setTimeout(w http.ResponseWriter, r *http.Request) {
	timeout, ok := e.readTimeout(w, r)
	if !ok {
		return
	}
	if err := e.svc.SetTimeout(r.Context(), r.PathValue("id"), timeout); err != nil {
		e.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// pause answers as E2B's API does: 409 for a sandbox already paused,
// which the SDKs turn into false. sandbox-manager pauses a paused sandbox
// again and says nothing; the engine reads the state first.
func (e *Engine) pause(w http.ResponseWriter, r *http.Request) {
	if err := e.svc.Check(provider.SandboxPause); err != nil {
		e.fail(w, err) // before the read, which needs another capability
		return
	}
	id := r.PathValue("id")
	s, err := e.svc.Get(r.Context(), id)
	switch {
	case err != nil:
		e.fail(w, err)
		return
	case s.State == provider.StatePaused:
		e.writeError(w, http.StatusConflict, abxerr.New(abxerr.Rejected, "sandbox %s is already paused", id))
		return
	}
	if err := e.svc.Pause(r.Context(), id); err != nil {
		e.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// resume answers as E2B's API does: 409 for a sandbox that is not
// paused, then the sandbox it resumed.
func (e *Engine) resume(w http.ResponseWriter, r *http.Request) {
	if err := e.svc.Check(provider.SandboxPause); err != nil {
		e.fail(w, err)
		return
	}
	timeout, ok := e.readTimeout(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if s, err := e.svc.Get(r.Context(), id); err != nil {
		e.fail(w, err)
		return
	} else if s.State != provider.StatePaused {
		e.writeError(w, http.StatusConflict, abxerr.New(abxerr.Rejected, "sandbox %s is already running", id))
		return
	}
	if err := e.svc.Resume(r.Context(), id, timeout); err != nil {
		e.fail(w, err)
		return
	}
	s, err := e.svc.Get(r.Context(), id)
	if err != nil {
		e.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, e.sandbox(s))
}

func (e *Engine) connect(w http.ResponseWriter, r *http.Request) {
	timeout, ok := e.readTimeout(w, r)
	if !ok {
		return
	}
	c, err := e.svc.Connect(r.Context(), r.PathValue("id"), timeout)
	if err != nil {
		e.fail(w, err)
		return
	}
	status := http.StatusOK
	if c.Resumed {
		status = http.StatusCreated
	}
	writeJSON(w, status, e.sandbox(&c.Sandbox))
}
