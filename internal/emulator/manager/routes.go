package manager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/e2bapi"
)

// forbiddenPrefixes are the metadata key prefixes the server reserves.
var forbiddenPrefixes = []string{"agents.kruise.io/", "e2b.agents.kruise.io/"}

// routes registers every route twice, as the real server does: at the plain
// path and under /kruise/api. Go's mux answers anything else with plain-text
// 404 or 405, like the real one.
func (s *Server) routes() {
	handle := func(pattern string, h func(http.ResponseWriter, *http.Request)) {
		method, path, _ := strings.Cut(pattern, " ")
		s.mux.HandleFunc(method+" "+path, s.auth(h))
		s.mux.HandleFunc(method+" /kruise/api"+path, s.auth(h))
	}
	handle("POST /sandboxes", s.create)
	handle("GET /v2/sandboxes", s.list)
	handle("GET /sandboxes/{sandboxID}", s.sandbox(s.get))
	handle("DELETE /sandboxes/{sandboxID}", s.sandbox(s.kill))
	handle("POST /sandboxes/{sandboxID}/connect", s.sandbox(s.connect))
	handle("POST /sandboxes/{sandboxID}/timeout", s.sandbox(s.setTimeout))
	handle("POST /sandboxes/{sandboxID}/pause", s.sandbox(s.pause))
	handle("POST /sandboxes/{sandboxID}/resume", s.sandbox(s.resume))
	handle("PUT /sandboxes/{sandboxID}/network", s.setNetwork)
	handle("POST /sandboxes/{sandboxID}/snapshots", s.sandbox(s.snapshot))
	handle("GET /snapshots", s.listSnapshots)
	handle("DELETE /templates/{templateID}", s.deleteTemplate)
	// The refresh of a traffic token is the private protocol's alone.
	s.mux.HandleFunc("POST /kruise/api/sandboxes/{sandboxID}/traffic-access-token", s.auth(s.sandbox(s.refreshTrafficToken)))
	// The v2 connect route the E2B SDKs call is not served: the real
	// server answers it 405, as it does POST /v2/sandboxes, not 404.
	for _, prefix := range []string{"", "/kruise/api"} {
		s.mux.HandleFunc(prefix+"/v2/sandboxes/{sandboxID}/connect", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		})
	}
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "OK") })
}

// auth checks X-API-Key; a missing key is an empty key, refused the same way.
func (s *Server) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.keyed(r) {
			writeError(w, r, http.StatusUnauthorized, http.StatusUnauthorized, "Invalid API Key")
			return
		}
		s.Expire()
		next(w, r)
	}
}

// sandbox resolves {sandboxID}: missing, killed and expired sandboxes all
// answer the same 404.
func (s *Server) sandbox(next func(http.ResponseWriter, *http.Request, *Sandbox)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("sandboxID")
		s.mu.Lock()
		b, ok := s.boxes[id]
		s.mu.Unlock()
		if !ok {
			notFound(w, r, id)
			return
		}
		next(w, r, b)
	}
}

func notFound(w http.ResponseWriter, r *http.Request, id string) {
	writeError(w, r, http.StatusNotFound, http.StatusNotFound,
		"Sandbox route not found, maybe it is crashed or killed: "+id)
}

// lockLive is lock, if b is still a sandbox of the server: another request
// may have killed it, or it expired, since sandbox looked it up. If not,
// it answers 404 as sandbox does and returns false.
func (s *Server) lockLive(w http.ResponseWriter, r *http.Request, b *Sandbox) (mark uint64, ok bool) {
	mark = s.lock()
	if s.boxes[b.ID] == b {
		return mark, true
	}
	s.mu.Unlock()
	notFound(w, r, b.ID)
	return 0, false
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req e2bapi.NewSandbox
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, r, http.StatusInternalServerError, 0, err.Error())
		return
	}
	timeout := time.Duration(req.Timeout) * time.Second
	if req.Timeout == 0 {
		timeout = DefaultTimeout
	}
	if timeout < MinTimeout || timeout > MaxTimeout {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
			fmt.Sprintf("timeout should between %d and %d", int(MinTimeout.Seconds()), int(MaxTimeout.Seconds())))
		return
	}
	var egress *e2bapi.Network
	if n := req.Network; n != nil {
		if err := e2bapi.CheckEgress(n.AllowOut, n.DenyOut); err != nil {
			writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, err.Error())
			return
		}
		if len(n.AllowOut)+len(n.DenyOut) > 0 {
			// The manager keeps the rules alone: allowPublicTraffic is
			// E2B's, which it does not read.
			egress = &e2bapi.Network{AllowOut: n.AllowOut, DenyOut: n.DenyOut}
		}
	}
	// A clone's name comes out of the metadata before the rest is read.
	md := map[string]string{}
	for k, v := range req.Metadata {
		md[k] = v
	}
	name, generate, err := cloneName(md)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, "Bad extension param: "+err.Error())
		return
	}
	var from *Snapshot
	if !s.knownTemplate(req.TemplateID) {
		s.mu.Lock()
		if sn := s.snaps[req.TemplateID]; sn != nil {
			c := *sn
			from = &c
		}
		s.mu.Unlock()
	}
	if from == nil && (name != "" || generate != "") {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
			"sandbox-name and sandbox-generate-name are only supported for clone")
		return
	}
	if _, ok := md["e2b.agents.kruise.io/image"]; ok && from != nil {
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, "InplaceUpdate is not supported for clone")
		return
	}
	for k := range md {
		for _, p := range forbiddenPrefixes {
			if strings.HasPrefix(k, p) {
				writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
					fmt.Sprintf("Forbidden metadata key [%s]: cannot contain prefixes: %v", k, forbiddenPrefixes))
				return
			}
		}
	}
	if from == nil && !s.knownTemplate(req.TemplateID) {
		// The cluster's words, and what only this server can add: the
		// templates it has (a cluster's are its SandboxSets, which it
		// does not list here).
		writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
			"Template or Checkpoint not found (this server's templates: "+strings.Join(s.opts.Templates, ", ")+")")
		return
	}
	base := req.TemplateID
	if from != nil {
		base = from.Template
	}
	md[ResourceKey] = "sandboxset/" + base
	now := s.opts.Now()
	mark := s.lock()
	var id string
	switch {
	case name != "":
		id = "default--" + name
		if s.boxes[id] != nil {
			s.unlock(mark)
			writeError(w, r, http.StatusConflict, http.StatusConflict, fmt.Sprintf("sandbox %s already exists", id))
			return
		}
	case from != nil:
		prefix := generate
		if prefix == "" {
			prefix = from.ID + "-"
		}
		id = cloneID(prefix)
		for s.boxes[id] != nil {
			id = cloneID(prefix)
		}
	default:
		id = newID(req.TemplateID)
		for s.boxes[id] != nil { // five random letters do collide, now and then
			id = newID(req.TemplateID)
		}
	}
	s.seq++
	b := &Sandbox{
		ID: id, Template: base, State: "running",
		StartedAt: now, EndAt: now.Add(timeout), AutoPause: req.AutoPause,
		AllowInternet: req.AllowInternetAccess == nil || *req.AllowInternetAccess,
		Metadata:      md, EnvVars: req.EnvVars, EnvdAccessToken: randomHex(16), seq: s.seq,
		Guarded: md[JWTAuthKey] == "true", Network: egress,
	}
	if from != nil {
		// A clone starts as its snapshot's sandbox was: its environment,
		// its network, its envd token (the checkpoint's); the request's
		// environment is not read.
		b.FromSnapshot, b.EnvVars, b.EnvdAccessToken = from.ID, from.EnvVars, from.EnvdAccessToken
		b.AllowInternet = from.AllowInternet
		if egress == nil {
			b.Network = from.Network
		}
		if s.store != nil {
			// Its files, made before it is: without the lock, then the
			// ID checked again (a name asked for twice at once).
			s.unlock(mark)
			if err := s.store.Clone(from.ID, id); err != nil {
				writeError(w, r, http.StatusInternalServerError, 0, "failed to clone "+from.ID+": "+err.Error())
				return
			}
			mark = s.lock()
			if s.boxes[id] != nil {
				s.unlock(mark)
				writeError(w, r, http.StatusConflict, http.StatusConflict, fmt.Sprintf("sandbox %s already exists", id))
				return
			}
		}
	}
	s.boxes[b.ID] = b
	view := s.view(b, true)
	if b.Guarded {
		// Only the create answer carries the token: a describe does not,
		// and a new one comes from the refresh route.
		s.issueLocked(b)
		view.TrafficAccessToken, view.TrafficAccessTokenExpiration = b.TrafficToken, b.TrafficTokenExpiry.Format(time.RFC3339)
	}
	s.emitLocked("created", *b)
	s.unlock(mark)
	writeJSON(w, http.StatusCreated, view)
}

func (s *Server) get(w http.ResponseWriter, _ *http.Request, b *Sandbox) {
	s.mu.Lock()
	view := s.view(b, true)
	// A describe alone tells the egress rules, as the manager reads them
	// back from the cluster then.
	view.Network = b.Network
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) kill(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	mark, ok := s.lockLive(w, r, b)
	if !ok {
		return
	}
	delete(s.boxes, b.ID)
	s.emitLocked("killed", *b)
	s.unlock(mark)
	w.WriteHeader(http.StatusNoContent)
}

// connect resumes a paused sandbox (201) or leaves a running one (200), and
// only ever extends the deadline.
func (s *Server) connect(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	timeout, ok := readTimeout(w, r, http.StatusBadRequest)
	if !ok {
		return
	}
	now := s.opts.Now()
	mark, ok := s.lockLive(w, r, b)
	if !ok {
		return
	}
	status := http.StatusOK
	if b.State == "paused" {
		b.State, b.EndAt, status = "running", now.Add(timeout), http.StatusCreated
	} else if end := now.Add(timeout); end.After(b.EndAt) {
		b.EndAt = end
	}
	view := s.view(b, true)
	if status == http.StatusCreated {
		s.emitLocked("resumed", *b)
	} else {
		s.emitLocked("timeout", *b)
	}
	s.unlock(mark)
	writeJSON(w, status, view)
}

// setTimeout overwrites the deadline; every error but 404 comes back as 500.
func (s *Server) setTimeout(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	timeout, ok := readTimeout(w, r, http.StatusInternalServerError)
	if !ok {
		return
	}
	mark, ok := s.lockLive(w, r, b)
	if !ok {
		return
	}
	b.EndAt = s.opts.Now().Add(timeout)
	s.emitLocked("timeout", *b)
	s.unlock(mark)
	w.WriteHeader(http.StatusNoContent)
}

// pause is idempotent on this server.
func (s *Server) pause(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	mark, ok := s.lockLive(w, r, b)
	if !ok {
		return
	}
	changed := b.State != "paused"
	b.State, b.EndAt = "paused", s.opts.Now().Add(pausedFor)
	if changed {
		s.emitLocked("paused", *b)
	}
	s.unlock(mark)
	w.WriteHeader(http.StatusNoContent)
}

// resume answers 204 with no body; a sandbox that is not paused is a 409,
// and any bad body a 500.
func (s *Server) resume(w http.ResponseWriter, r *http.Request, b *Sandbox) {
	timeout, ok := readTimeout(w, r, http.StatusInternalServerError)
	if !ok {
		return
	}
	mark, ok := s.lockLive(w, r, b)
	if !ok {
		return
	}
	if b.State != "paused" {
		s.unlock(mark)
		writeError(w, r, http.StatusConflict, http.StatusConflict, "Sandbox "+b.ID+" is not paused")
		return
	}
	b.State, b.EndAt = "running", s.opts.Now().Add(timeout)
	s.emitLocked("resumed", *b)
	s.unlock(mark)
	w.WriteHeader(http.StatusNoContent)
}

// readTimeout reads {"timeout": seconds}: required, 1..max. A body that does
// not decode is a 500 with code 0; a bad value answers badStatus.
func readTimeout(w http.ResponseWriter, r *http.Request, badStatus int) (time.Duration, bool) {
	var body e2bapi.Timeout
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, r, http.StatusInternalServerError, 0, err.Error())
		return 0, false
	}
	if body.Timeout <= 0 || body.Timeout > int64(MaxTimeout.Seconds()) {
		writeError(w, r, badStatus, badStatus, fmt.Sprintf("timeout should between 0 and %d", int(MaxTimeout.Seconds())))
		return 0, false
	}
	return time.Duration(body.Timeout) * time.Second, true
}

// list serves GET /v2/sandboxes: oldest first, x-next-token when more
// remain. Query keys other than state, metadata, limit and nextToken are
// metadata filters, as on the real server.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	states := map[string]bool{"running": true, "paused": true}
	if raw := q.Get("state"); raw != "" {
		states = map[string]bool{}
		for _, st := range strings.Split(raw, ",") {
			if st != "running" && st != "paused" {
				writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
					fmt.Sprintf("Only 'running' and 'paused' state are supported, not: '%s'", raw))
				return
			}
			states[st] = true
		}
	}
	filters := map[string]string{}
	if raw := q.Get("metadata"); raw != "" {
		raw, _ = url.QueryUnescape(raw)
		for _, pair := range strings.Split(raw, "&") {
			k, v, _ := strings.Cut(pair, "=")
			filters[k] = v
		}
	}
	for k := range q {
		switch k {
		case "state", "metadata", "limit", "nextToken":
		default:
			filters[k] = q.Get(k)
		}
	}
	limit := maxListLimit
	if raw := q.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxListLimit {
			writeError(w, r, http.StatusBadRequest, http.StatusBadRequest,
				fmt.Sprintf("Invalid limit: %s, must be between 1 and %d", raw, maxListLimit))
			return
		}
		limit = n
	}
	after := -1
	if tok := q.Get("nextToken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil {
			writeError(w, r, http.StatusBadRequest, http.StatusBadRequest, "Invalid nextToken: "+tok)
			return
		}
		after = n
	}

	s.mu.Lock()
	page := []e2bapi.Sandbox{}
	next := ""
	for _, b := range s.sortedLocked() {
		if b.seq <= after || !states[b.State] || !matches(b.Metadata, filters) {
			continue
		}
		if len(page) == limit {
			next = strconv.Itoa(b.seq - 1)
			break
		}
		page = append(page, s.view(b, false))
	}
	s.mu.Unlock()
	if next != "" {
		w.Header().Set("X-Next-Token", next)
	}
	writeJSON(w, http.StatusOK, page)
}

func matches(md, filters map[string]string) bool {
	for k, v := range filters {
		if md[k] != v {
			return false
		}
	}
	return true
}

// view is the Sandbox JSON of the real server. List items carry no token.
func (s *Server) view(b *Sandbox, withToken bool) e2bapi.Sandbox {
	template := b.Template
	if b.FromSnapshot != "" {
		template = b.FromSnapshot
	}
	v := e2bapi.Sandbox{
		TemplateID:  template,
		SandboxID:   b.ID,
		StartedAt:   e2bapi.FormatTime(b.StartedAt),
		EndAt:       e2bapi.FormatTime(b.EndAt),
		EnvdVersion: s.opts.EnvdVersion,
		Domain:      s.opts.Domain,
		CPUCount:    2,
		MemoryMB:    2048,
		DiskSizeMB:  10240,
		Metadata:    b.Metadata,
		State:       b.State,
	}
	if withToken {
		v.EnvdAccessToken = b.EnvdAccessToken
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-ID", randomHex(16))
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes the envelope. The code in the body may differ from the
// status (0 for a body that did not decode); X-Request-ID is only in the body.
func writeError(w http.ResponseWriter, r *http.Request, status, code int, msg string) {
	id := r.Header.Get("X-Request-ID")
	if id == "" {
		id = randomHex(16)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(e2bapi.Error{Code: code, Message: msg, Headers: e2bapi.NoHeaders, RequestID: id})
}

func readBody(r *http.Request) []byte {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	_ = r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}
