package engine

import (
	"net/http"
	"strconv"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// E2B's snapshot routes, through the provider's (docs/engine.md): a
// snapshot taken ({name} read and not kept: sandbox-manager keeps none),
// listed, deleted (a template's route, DELETE /templates/{id}), and a fork
// (a snapshot that keeps the sandbox running, then clones). A sandbox made
// from a snapshot is E2B's create with the snapshot's ID as its template.

// snapshot serves POST /sandboxes/{id}/snapshots.
func (e *Engine) snapshot(w http.ResponseWriter, r *http.Request) {
	var body e2bapi.NewSnapshot
	if !e.readBody(w, r, &body) {
		return
	}
	s, err := e.svc.Snapshot(r.Context(), r.PathValue("id"), provider.SnapshotOptions{})
	if err != nil {
		e.fail(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, e2bapi.SnapshotInfo{SnapshotID: e.redact(s.SnapshotID), Names: []string{}})
}

// listSnapshots serves GET /snapshots, one page of all (at most limit):
// no X-Next-Token, so a client asks once. E2B's name filter names
// nothing sandbox-manager keeps, and is refused rather than ignored.
func (e *Engine) listSnapshots(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("name") != "" {
		e.fail(w, abxerr.New(abxerr.InvalidInput, "snapshots have no names on this provider: list them by sandboxID"))
		return
	}
	opts := provider.SnapshotListOptions{SandboxID: q.Get("sandboxID")}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			e.fail(w, abxerr.New(abxerr.InvalidInput, "invalid limit %q: give a whole number of 1 or more", v))
			return
		}
		opts.Limit = n
	}
	list, err := e.svc.Snapshots(r.Context(), opts)
	if err != nil {
		e.fail(w, err)
		return
	}
	out := make([]e2bapi.SnapshotInfo, len(list))
	for i, s := range list {
		out[i] = e2bapi.SnapshotInfo{SnapshotID: e.redact(s.SnapshotID), Names: []string{}}
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteSnapshot serves DELETE /templates/{id}: 204, also for a snapshot
// that is not there (the provider cannot tell).
func (e *Engine) deleteSnapshot(w http.ResponseWriter, r *http.Request) {
	if err := e.svc.DeleteSnapshot(r.Context(), r.PathValue("id")); err != nil {
		e.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// forkBody is E2B's fork request.
type forkBody struct {
	Timeout int64 `json:"timeout"` // seconds; 0: the provider's default
	Count   int   `json:"count"`   // 0: one
}

// forkResult is one fork of E2B's answer: a sandbox, or the error that
// kept it from starting.
type forkResult struct {
	Sandbox *e2bapi.Sandbox `json:"sandbox"`
	Error   *forkError      `json:"error"`
}

type forkError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// fork serves POST /sandboxes/{id}/fork: one entry per fork asked for, the
// sandboxes made then the errors of those that were not.
func (e *Engine) fork(w http.ResponseWriter, r *http.Request) {
	var body forkBody
	if !e.readBody(w, r, &body) {
		return
	}
	if body.Count == 0 {
		body.Count = 1
	}
	res, err := e.svc.Fork(r.Context(), r.PathValue("id"), sandboxes.ForkRequest{Count: body.Count, Timeout: seconds(body.Timeout)})
	if err != nil {
		e.fail(w, err)
		return
	}
	out := make([]forkResult, 0, body.Count)
	for _, c := range res.Clones {
		s := e.sandbox(c)
		out = append(out, forkResult{Sandbox: &s})
	}
	for _, f := range res.Failed {
		out = append(out, forkResult{Error: &forkError{Code: abxerr.HTTPStatus(f.Err()), Message: e.redact(f.Error)}})
	}
	writeJSON(w, http.StatusOK, out)
}
