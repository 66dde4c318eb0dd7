package engine

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/provider"
)

// E2B keeps a sandbox's samples over its life and answers a range of them.
// The provider keeps none: envd measures the sandbox when asked, so the
// engine answers that one sample, and start and end only say whether it
// falls within them (docs/engine.md, "Metrics").

// maxMetricsIDs is how many sandboxes one GET /sandboxes/metrics may name,
// as E2B allows.
const maxMetricsIDs = 100

// metricsConcurrency bounds the sandboxes asked at once by that route.
const metricsConcurrency = 8

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
	m, err := e.sample(r.Context(), r.PathValue("id"))
	if err != nil {
		e.fail(w, err)
		return
	}
	out := []metricJSON{}
	if m != nil && m.Time.Unix() >= start && m.Time.Unix() <= end {
		out = append(out, metric(m))
	}
	writeJSON(w, http.StatusOK, out)
}

// metricsOfMany serves GET /sandboxes/metrics?sandbox_ids=a,b: the current
// sample of each running sandbox named. One that does not exist or is not
// running is left out, as E2B leaves out those it has no sample of; any
// other failure fails the request, naming the sandbox.
func (e *Engine) metricsOfMany(w http.ResponseWriter, r *http.Request) {
	var ids []string
	seen := map[string]bool{}
	for _, v := range r.URL.Query()["sandbox_ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		if err := provider.CheckSandboxID(id); err != nil {
			e.writeError(w, http.StatusBadRequest, err)
			return
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
	samples, errs := make([]*envd.Metrics, len(ids)), make([]error, len(ids))
	var g errgroup.Group
	g.SetLimit(metricsConcurrency)
	for i, id := range ids {
		g.Go(func() error {
			samples[i], errs[i] = e.sample(r.Context(), id)
			return nil
		})
	}
	_ = g.Wait()
	out := map[string]metricJSON{}
	for i, id := range ids {
		switch {
		case errs[i] != nil && abxerr.From(errs[i]).Code == abxerr.NotFound:
		case errs[i] != nil:
			named := *abxerr.From(errs[i])
			named.Message = "sandbox " + id + ": " + named.Message
			e.fail(w, &named)
			return
		case samples[i] != nil:
			out[id] = metric(samples[i])
		}
	}
	writeJSON(w, http.StatusOK, sandboxesMetricsJSON{Sandboxes: out})
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

// sample asks envd in the sandbox for its current sample; nil, with no
// error, for a sandbox that is not running (it has none to give, and its
// envd cannot be reached).
func (e *Engine) sample(ctx context.Context, id string) (*envd.Metrics, error) {
	s, err := e.p.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if s.State != "" && s.State != "running" {
		return nil, nil
	}
	dp, ok := e.p.(provider.DataPlane)
	if !ok {
		return nil, abxerr.NewUnsupported(e.d.Name, string(provider.SandboxMetrics))
	}
	ep, err := dp.Endpoint(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	// The sandbox's tokens ride on every request, so a redirect is not
	// followed: it could take them to another origin.
	hc := &http.Client{Transport: e.rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	c := envd.New(httpclient.WithIdle(hc, ep.IdleTimeout), envd.Endpoint{URL: ep.URL, Header: ep.Header,
		Version: ep.EnvdVersion, Timeout: ep.RequestTimeout}, "")
	return c.Metrics(ctx)
}

func metric(m *envd.Metrics) metricJSON {
	return metricJSON{Timestamp: m.Time.UTC(), TimestampUnix: m.Time.Unix(), CPUCount: m.CPUCount, CPUUsedPct: m.CPUUsedPct,
		MemUsed: m.MemUsed, MemTotal: m.MemTotal, MemCache: m.MemCache, DiskUsed: m.DiskUsed, DiskTotal: m.DiskTotal}
}
