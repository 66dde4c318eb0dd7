package engine

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// maxBody bounds a control-plane request body.
const maxBody = 1 << 20

// Route is one route of E2B's API the engine serves, and the operation
// of the catalogue (sandboxes.Op) it calls.
type Route struct {
	Pattern   string
	Operation string
}

// served is a route and its handler; a nil handler refuses the route.
type served struct {
	Route
	serve http.HandlerFunc
}

// routes are the engine's routes of E2B's control plane, each with its
// operation. A route whose operation abx does not offer yet (no function
// in the catalogue) answers E8004, never a silent 404.
func (e *Engine) routes() []served {
	type r = served
	return []r{
		{Route{"POST /sandboxes", "sandbox.create"}, e.create},
		{Route{"POST /v2/sandboxes", "sandbox.create"}, e.create},
		{Route{"GET /sandboxes", "sandbox.list"}, e.list},
		{Route{"GET /v2/sandboxes", "sandbox.list"}, e.list},
		{Route{"GET /sandboxes/{id}", "sandbox.info"}, e.get},
		{Route{"DELETE /sandboxes/{id}", "sandbox.kill"}, e.kill},
		{Route{"POST /sandboxes/{id}/timeout", "sandbox.timeout"}, e.setTimeout},
		{Route{"POST /sandboxes/{id}/pause", "sandbox.pause"}, e.pause},
		{Route{"POST /sandboxes/{id}/resume", "sandbox.resume"}, e.resume},
		{Route{"POST /sandboxes/{id}/connect", "sandbox.connect"}, e.connect},
		{Route{"POST /v2/sandboxes/{id}/connect", "sandbox.connect"}, e.connect},
		{Route{"GET /sandboxes/{id}/metrics", "sandbox.metrics"}, e.metrics},
		{Route{"GET /sandboxes/metrics", "sandbox.metrics"}, e.metricsOfMany},
		{Route{"POST /sandboxes/{id}/snapshots", "sandbox.snapshot"}, e.snapshot},
		{Route{"GET /snapshots", "snapshots.list"}, e.listSnapshots},
		{Route{"DELETE /templates/{id}", "snapshots.delete"}, e.deleteSnapshot},
		{Route{"POST /sandboxes/{id}/fork", "sandbox.fork"}, e.fork},
		{Route{"/templates", "templates.list"}, nil},
		{Route{"GET /templates/", "templates.list"}, nil},
		{Route{"/templates/", "templates.build"}, nil},
		{Route{"/v2/templates", "templates.build"}, nil},
		{Route{"/v2/templates/", "templates.build"}, nil},
		{Route{"/v3/templates", "templates.build"}, nil},
		{Route{"/v3/templates/", "templates.build"}, nil},
		{Route{"GET /sandboxes/{id}/logs", "sandbox.logs"}, nil},
		{Route{"GET /v2/sandboxes/{id}/logs", "sandbox.logs"}, nil},
		{Route{"/snapshots", "snapshots"}, nil},
		{Route{"/snapshots/", "snapshots"}, nil},
		{Route{"/volumes", "volumes"}, nil},
		{Route{"/volumes/", "volumes"}, nil},
	}
}

// routes are those above, then the route each operation of the catalogue
// declares (sandboxes.Door.Route): served from its declaration when abx
// offers it (declared.go), refused until then. Offering an operation so
// changes its declaration only.
func (e *Engine) allRoutes() []served {
	all := e.routes()
	for _, op := range sandboxes.Catalogue() {
		switch {
		case op.Door == nil || op.Door.Route == "":
		case op.Call != nil:
			all = append(all, served{Route{op.Door.Route, op.Name}, e.declared(op)})
		default:
			all = append(all, served{Route{op.Door.Route, op.Name}, nil})
		}
	}
	return all
}

// dataPlaneRoute is the engine's door to a sandbox's ports, for requests
// that name a sandbox and a port (a {port}-{id} host under the engine's
// domain, or E2B's E2b-Sandbox-Id and E2b-Sandbox-Port headers), and the
// operation it calls: each request is admitted as the control plane's
// are, and forwarded to the endpoint the operation hands out.
var dataPlaneRoute = Route{"{port}-{sandboxID}.{domain}", "sandbox.port"}

// Routes lists the engine's routes and their operations, the control
// plane's then the data plane's, for a test that holds them to the
// catalogue.
func Routes() []Route {
	var out []Route
	for _, r := range (&Engine{}).allRoutes() {
		out = append(out, r.Route)
	}
	return append(out, dataPlaneRoute)
}

// spelling is how E2B's API names the operations' inputs.
var spelling = sandboxes.Spelling{Names: map[string]string{
	"id": "sandboxID", "template": "templateID", "env": "envVars",
}}

// route serves each route: an operation of the catalogue abx offers is
// admitted (its capability, before the body is read) and called with
// E2B's names for its inputs; one it does not offer yet is refused.
func (e *Engine) route() {
	for _, rt := range e.allRoutes() {
		op := sandboxes.Op(rt.Operation)
		serve := rt.serve
		e.mux.HandleFunc(rt.Pattern, func(w http.ResponseWriter, r *http.Request) {
			ctx, err := e.svc.Admit(sandboxes.WithSpelling(r.Context(), spelling), op)
			if err == nil && serve == nil {
				err = e.svc.Unoffered(op)
			}
			if err != nil {
				e.fail(w, err)
				return
			}
			serve(w, r.WithContext(ctx))
		})
	}
	// A route of no operation, E2B's or not: E2B's API grows, and a client
	// that meets a route abx has not heard of is told so in E2B's
	// envelope, never by Go's plain-text 404, which the SDKs read as "the
	// sandbox was not found".
	e.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		e.writeError(w, http.StatusNotImplemented, abxerr.New(abxerr.Unsupported,
			"abx's engine does not serve %s %q", r.Method, r.URL.Path).
			WithHint("the routes it serves and refuses are in docs/engine.md"))
	})
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
	createNetwork(&req, body.Network)
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

// kill serves DELETE: the operation (which forgets what was kept of the
// sandbox's ports), then 204; a sandbox that is not there is 404, as
// E2B's API answers a second kill.
func (e *Engine) kill(w http.ResponseWriter, r *http.Request) {
	if err := e.svc.Kill(r.Context(), r.PathValue("id")); err != nil {
		e.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
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
