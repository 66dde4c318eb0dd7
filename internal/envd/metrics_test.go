package envd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// envd 0.2.10's answer, as a real one sends it.
const metrics0210 = `{"ts":1764680000,"cpu_count":2,"cpu_used_pct":12.5,"mem_total_mib":985,"mem_used_mib":211,` +
	`"mem_total":1032871936,"mem_used":221249536,"disk_used":1415823360,"disk_total":2040373248}`

func metricsServer(t *testing.T, status int, body string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || r.Method != http.MethodGet || r.Header.Get("X-Access-Token") != "tok" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	h := http.Header{}
	h.Set("X-Access-Token", "tok")
	return New(srv.Client(), Endpoint{URL: srv.URL, Header: h, Version: "0.2.10"}, "")
}

func TestMetricsReadsEnvd0210(t *testing.T) {
	m, err := metricsServer(t, 200, metrics0210).Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := Metrics{Time: time.Unix(1764680000, 0).UTC(), CPUCount: 2, CPUUsedPct: 12.5, MemUsed: 221249536,
		MemTotal: 1032871936, DiskUsed: 1415823360, DiskTotal: 2040373248}
	if *m != want {
		t.Errorf("got %+v\nwant %+v", *m, want)
	}
	// MiB only, as older envd sent: bytes from MiB.
	m, err = metricsServer(t, 200, `{"ts":1,"cpu_count":1,"cpu_used_pct":0,"mem_total_mib":2,"mem_used_mib":1,"disk_used":0,"disk_total":0}`).Metrics(t.Context())
	if err != nil || m.MemTotal != 2<<20 || m.MemUsed != 1<<20 {
		t.Errorf("MiB only: %+v %v", m, err)
	}
}

func TestMetricsErrorsNameEnvdsVersion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		code   abxerr.Code
		want   string
	}{
		{"no route", 404, "404 page not found\n", abxerr.BadResponse, "envd 0.2.10 in this sandbox has no /metrics"},
		{"not JSON", 200, "<html>", abxerr.BadResponse, "envd 0.2.10 answered /metrics with something abx cannot read: not its JSON"},
		{"a field missing", 200, `{"ts":1,"cpu_count":1,"cpu_used_pct":1,"mem_total":1,"mem_used":1,"disk_used":1}`, abxerr.BadResponse, "no disk_total"},
		{"negative", 200, strings.Replace(metrics0210, `"disk_used":1415823360`, `"disk_used":-1`, 1), abxerr.BadResponse, "negative"},
		{"huge", 200, `{"pad":"` + strings.Repeat("x", maxMetricsBody) + `"}`, abxerr.BadResponse, "more than"},
		{"token refused", 401, `{"code":401,"message":"unauthorized"}`, abxerr.Unauthorized, "unauthorized"},
		{"the gateway's 404", 404, `{"code":404,"message":"sandbox not found"}`, abxerr.NotFound, "sandbox not found"},
	} {
		_, err := metricsServer(t, tc.status, tc.body).Metrics(t.Context())
		e := abxerr.From(err)
		if err == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: got %v (%s), want %s %q", tc.name, err, e.Code, tc.code, tc.want)
		}
	}
}

// A stalled envd is bounded by the endpoint's request timeout, as every
// unary call is.
func TestMetricsHasTheRequestTimeout(t *testing.T) {
	stall := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stall); srv.Close() })
	c := New(srv.Client(), Endpoint{URL: srv.URL, Version: "0.2.10", Timeout: 50 * time.Millisecond}, "")
	// A cancellation, not a deadline, bounds the test itself: without the
	// timeout it would end as cancelled.
	ctx, cancel := context.WithCancel(t.Context())
	defer time.AfterFunc(30*time.Second, cancel).Stop()
	_, err := c.Metrics(ctx)
	if e := abxerr.From(err); err == nil || e.Code != abxerr.Timeout {
		t.Errorf("got %v (%s), want a timeout", err, e.Code)
	}
}
