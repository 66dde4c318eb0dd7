package envd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Metrics is one sample of a sandbox's resources as envd measures them
// inside it (GET /metrics, docs/protocol.md "Metrics"): sizes in bytes.
type Metrics struct {
	// Time is when envd took the sample, to the second.
	Time       time.Time
	CPUCount   int
	CPUUsedPct float64
	MemUsed    int64
	MemTotal   int64
	// MemCache is the page cache, which newer envd sends; 0 when unknown.
	MemCache  int64
	DiskUsed  int64
	DiskTotal int64
}

// metricsWire is envd's answer. Every field abx shows is a pointer, so
// that a missing one is told from a zero.
type metricsWire struct {
	TS          *int64   `json:"ts"`
	CPUCount    *int     `json:"cpu_count"`
	CPUUsedPct  *float64 `json:"cpu_used_pct"`
	MemTotalMiB *int64   `json:"mem_total_mib"`
	MemUsedMiB  *int64   `json:"mem_used_mib"`
	MemTotal    *int64   `json:"mem_total"`
	MemUsed     *int64   `json:"mem_used"`
	MemCache    *int64   `json:"mem_cache"`
	DiskUsed    *int64   `json:"disk_used"`
	DiskTotal   *int64   `json:"disk_total"`
}

// maxMetricsBody bounds the answer: envd's is some 200 bytes.
const maxMetricsBody = 64 << 10

// Metrics asks envd for a sample of the sandbox's CPU, memory and disk.
// An envd without the route, or an answer that is not its JSON, is
// E5004 naming envd's version.
func (c *Client) Metrics(ctx context.Context) (*Metrics, error) {
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, abxerr.From(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxMetricsBody+1))
	if err != nil {
		return nil, abxerr.From(err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		// The gateway's own 404 (a sandbox gone) has a JSON body with a
		// message; envd's mux answers a plain "404 page not found".
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return nil, abxerr.New(abxerr.BadResponse, "envd %s in this sandbox has no /metrics (it answered %d)", c.Version, resp.StatusCode).
				WithHint("metrics need an envd that serves GET /metrics (0.2.10 does): a newer template")
		}
		return nil, abxerr.FromHTTP(resp.StatusCode, abxerr.ParseHTTPBody(raw).Message)
	case resp.StatusCode != http.StatusOK:
		e := abxerr.FromHTTP(resp.StatusCode, abxerr.ParseHTTPBody(raw).Message)
		if resp.StatusCode == http.StatusUnauthorized {
			e.Hint = "the sandbox refused the access token"
		}
		return nil, e
	}
	m, why := parseMetrics(raw)
	if why != "" {
		return nil, abxerr.New(abxerr.BadResponse, "envd %s answered /metrics with something abx cannot read: %s", c.Version, why).
			WithHint("abx reads envd 0.2.10's answer: {\"ts\",\"cpu_count\",\"cpu_used_pct\",\"mem_total\",\"mem_used\",\"disk_used\",\"disk_total\"}")
	}
	return m, nil
}

// parseMetrics reads envd's answer, or says what is wrong with it.
func parseMetrics(raw []byte) (*Metrics, string) {
	if len(raw) > maxMetricsBody {
		return nil, fmt.Sprintf("more than %d bytes", maxMetricsBody)
	}
	var w metricsWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, "not its JSON (" + shortJSONError(err) + ")"
	}
	// Older envd sent memory in MiB only.
	mib := func(b, m *int64) *int64 {
		if b == nil && m != nil {
			v := *m << 20
			return &v
		}
		return b
	}
	w.MemTotal, w.MemUsed = mib(w.MemTotal, w.MemTotalMiB), mib(w.MemUsed, w.MemUsedMiB)
	for _, f := range []struct {
		name    string
		missing bool
	}{{"ts", w.TS == nil}, {"cpu_count", w.CPUCount == nil}, {"cpu_used_pct", w.CPUUsedPct == nil},
		{"mem_total", w.MemTotal == nil}, {"mem_used", w.MemUsed == nil},
		{"disk_used", w.DiskUsed == nil}, {"disk_total", w.DiskTotal == nil}} {
		if f.missing {
			return nil, "no " + f.name
		}
	}
	m := &Metrics{Time: time.Unix(*w.TS, 0).UTC(), CPUCount: *w.CPUCount, CPUUsedPct: *w.CPUUsedPct,
		MemUsed: *w.MemUsed, MemTotal: *w.MemTotal, DiskUsed: *w.DiskUsed, DiskTotal: *w.DiskTotal}
	if w.MemCache != nil {
		m.MemCache = *w.MemCache
	}
	switch {
	case m.CPUCount < 0 || m.MemUsed < 0 || m.MemTotal < 0 || m.MemCache < 0 || m.DiskUsed < 0 || m.DiskTotal < 0:
		return nil, "a negative count"
	case math.IsNaN(m.CPUUsedPct) || m.CPUUsedPct < 0:
		return nil, fmt.Sprintf("cpu_used_pct %v", m.CPUUsedPct)
	}
	return m, ""
}

// shortJSONError keeps a decoding error to its gist.
func shortJSONError(err error) string {
	s := err.Error()
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
