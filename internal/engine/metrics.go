package engine

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// E2B keeps a sandbox's samples over its life and answers a range of them.
// The provider keeps none: envd measures the sandbox when asked, so the
// engine answers that one sample, and start and end only say whether it
// falls within them (docs/engine.md, "Metrics").

// maxMetricsIDs is how many sandboxes one GET /sandboxes/metrics may name,
// as E2B allows.
const maxMetricsIDs = 100

// metrics serves GET /sandboxes/{id}/metrics: the current sample as a
// list of one, or none for a sandbox that is not running.
func (e *Engine) metrics(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	start, ok := e.unixParam(w, q, "start", 0)
	if !ok {
		return
	}
	end, ok := e.unixParam(w, q, "end", math.MaxInt64)
	if !ok {
		return
	}
	if start > end {
		e.writeError(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "start (%d) is after end (%d)", start, end))
		return
	}
	samples, err := e.svc.Sample(r.Context(), sandboxes.Target{ID: r.PathValue("id")})
	if err != nil {
		e.fail(w, err)
		return
	}
	sm := samples[0]
	if sm.State != sandboxes.Paused && sm.Err != nil {
		e.fail(w, sm.Err)
		return
	}
	out := []e2bapi.Metric{}
	if f := sm.Figures; f != nil && f.Timestamp.Unix() >= start && f.Timestamp.Unix() <= end {
		out = append(out, metric(f))
	}
	writeJSON(w, http.StatusOK, out)
}

// metricsOfMany serves GET /sandboxes/metrics?sandbox_ids=a,b: the current
// sample of each running sandbox named. One that does not exist or is not
// running is left out, as E2B leaves out those it has no sample of; any
// other failure fails the request, naming the sandbox.
func (e *Engine) metricsOfMany(w http.ResponseWriter, r *http.Request) {
	var ids []string
	var targets []sandboxes.Target
	seen := map[string]bool{}
	for _, v := range r.URL.Query()["sandbox_ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
				targets = append(targets, sandboxes.Target{ID: id})
			}
		}
	}
	switch {
	case len(ids) == 0:
		e.writeError(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "sandbox_ids is required: a comma-separated list of sandbox IDs"))
		return
	case len(ids) > maxMetricsIDs:
		e.writeError(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "too many sandboxes requested (%d): at most %d", len(ids), maxMetricsIDs))
		return
	}
	// Every ID is checked before any sandbox is asked.
	samples, err := e.svc.Sample(r.Context(), targets...)
	if err != nil {
		e.fail(w, err)
		return
	}
	out := map[string]e2bapi.Metric{}
	for i, id := range ids {
		switch sm := samples[i]; {
		case sm.State == sandboxes.Paused, sm.State == sandboxes.Ended:
		case sm.Err != nil:
			named := *abxerr.From(sm.Err)
			named.Message = "sandbox " + id + ": " + named.Message
			e.fail(w, &named)
			return
		case sm.Figures != nil:
			out[id] = metric(sm.Figures)
		}
	}
	writeJSON(w, http.StatusOK, e2bapi.SandboxesMetrics{Sandboxes: out})
}

// unixParam reads a query parameter of Unix seconds, 0 or more; def when
// it is absent. A bad one is answered with 400.
func (e *Engine) unixParam(w http.ResponseWriter, q url.Values, name string, def int64) (int64, bool) {
	raw, ok := q[name]
	if !ok || len(raw) == 0 {
		return def, true
	}
	n, err := strconv.ParseInt(raw[0], 10, 64)
	if err != nil || n < 0 {
		e.writeError(w, http.StatusBadRequest, abxerr.New(abxerr.InvalidInput, "invalid %s %q: Unix seconds, 0 or more", name, raw[0]))
		return 0, false
	}
	return n, true
}
