package engine_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/engine"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// envd 0.2.10's answer to GET /metrics, as a real one sends it.
const envdMetrics0210 = `{"ts":1764680000,"cpu_count":2,"cpu_used_pct":12.5,"mem_total_mib":985,"mem_used_mib":211,` +
	`"mem_total":1032871936,"mem_used":221249536,"disk_used":1415823360,"disk_total":2040373248}`

// The SandboxMetric the engine makes of it.
const metric0210 = `{"timestamp":"2025-12-02T12:53:20Z","timestampUnix":1764680000,"cpuCount":2,"cpuUsedPct":12.5,` +
	`"memUsed":221249536,"memTotal":1032871936,"memCache":0,"diskUsed":1415823360,"diskTotal":2040373248}`

const sandboxToken = "sandbox-own-token"

// fakeEnvd answers /metrics with status and body, and remembers what it
// heard.
type fakeEnvd struct {
	status int
	body   string

	mu    sync.Mutex
	heard []http.Header
}

func (f *fakeEnvd) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.heard = append(f.heard, r.Header.Clone())
	f.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.Path != "/metrics" || r.Header.Get("X-Access-Token") != sandboxToken {
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(f.status)
	_, _ = io.WriteString(w, f.body)
}

func (f *fakeEnvd) requests() []http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.heard
}

// metricsProvider knows sandboxes by state and reaches every one's envd at
// one fake; the calls metrics makes are all it answers.
type metricsProvider struct {
	provider.Provider
	envdURL string
	states  map[string]string
}

func (p *metricsProvider) Get(_ context.Context, id string) (*provider.Sandbox, error) {
	state, ok := p.states[id]
	if !ok {
		return nil, abxerr.New(abxerr.NotFound, "sandbox %s not found", id)
	}
	return &provider.Sandbox{SandboxID: id, State: state}, nil
}

// Endpoint reads the sandbox, as the real one does: a missing one is not
// found, a paused one says so.
func (p *metricsProvider) Endpoint(ctx context.Context, id string, port int) (*provider.Endpoint, error) {
	if port != 0 {
		return nil, abxerr.New(abxerr.Internal, "asked for port %d, not envd's", port)
	}
	s, err := p.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("X-Access-Token", sandboxToken)
	return &provider.Endpoint{SandboxID: id, URL: p.envdURL, Header: h, EnvdVersion: "0.2.10", State: s.State}, nil
}

// metricsEngine serves an engine whose sandboxes' envd is fake: "sb" runs,
// "asleep" is paused.
func metricsEngine(t *testing.T, fake *fakeEnvd, capabilities ...provider.Capability) string {
	t.Helper()
	envd := httptest.NewServer(fake)
	t.Cleanup(envd.Close)
	p := &metricsProvider{envdURL: envd.URL, states: map[string]string{"sb": "running", "other": "running", "asleep": "paused"}}
	if capabilities == nil {
		capabilities = []provider.Capability{provider.SandboxLifecycle, provider.SandboxMetrics}
	}
	d := &provider.Descriptor{Name: "fake", Capabilities: capabilities}
	svc := &sandboxes.Service{Descriptor: func() (*provider.Descriptor, error) { return d, nil },
		Provider: func() (provider.Provider, error) { return p, nil }, HTTPClient: func() *http.Client { return http.DefaultClient }}
	srv := httptest.NewServer(engine.New(engine.Options{Sandboxes: svc, Transport: http.DefaultTransport,
		Token: token, Domain: "localhost:1"}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// The route answers envd's sample as E2B's one-element list, asking envd
// with the sandbox's own token and never the engine's or an API key.
func TestMetricsAnswersEnvdsSample(t *testing.T) {
	t.Parallel()
	fake := &fakeEnvd{status: 200, body: envdMetrics0210}
	url := metricsEngine(t, fake)
	status, body := get(t, url+"/sandboxes/sb/metrics")
	if status != 200 || body != "["+metric0210+"]" {
		t.Fatalf("got %d %s\nwant 200 [%s]", status, body, metric0210)
	}
	heard := fake.requests()
	if len(heard) != 1 {
		t.Fatalf("envd heard %d requests", len(heard))
	}
	if h := heard[0]; h.Get("X-API-Key") != "" || strings.Contains(strings.Join(h.Values("X-Access-Token"), ","), token) {
		t.Errorf("envd heard the engine's secrets: %v", h)
	}
}

// start and end (Unix seconds, inclusive) keep the sample or leave the
// list empty.
func TestMetricsStartAndEndFilterTheSample(t *testing.T) {
	t.Parallel()
	url := metricsEngine(t, &fakeEnvd{status: 200, body: envdMetrics0210})
	for query, want := range map[string]string{
		"start=1764680000&end=1764680000": "[" + metric0210 + "]",
		"start=0":                         "[" + metric0210 + "]",
		"end=1764680000":                  "[" + metric0210 + "]",
		"start=1764680001":                "[]",
		"end=1764679999":                  "[]",
		"start=1764670000&end=1764679999": "[]",
	} {
		if status, body := get(t, url+"/sandboxes/sb/metrics?"+query); status != 200 || body != want {
			t.Errorf("%s: %d %s, want 200 %s", query, status, body, want)
		}
	}
}

// A bad start or end is E2B's 400, and nothing is asked.
func TestMetricsRefusesABadRange(t *testing.T) {
	t.Parallel()
	fake := &fakeEnvd{status: 200, body: envdMetrics0210}
	url := metricsEngine(t, fake)
	for query, want := range map[string]string{
		"start=abc":                "invalid start \"abc\"",
		"start=-1":                 "invalid start \"-1\"",
		"end=1.5":                  "invalid end \"1.5\"",
		"end=":                     "invalid end \"\"",
		"start=1764680001&end=100": "start (1764680001) is after end (100)",
	} {
		status, body := get(t, url+"/sandboxes/sb/metrics?"+query)
		var e struct {
			Code    int
			Message string
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || status != 400 || e.Code != 400 || !strings.Contains(e.Message, want) {
			t.Errorf("%s: %d %s, want 400 with %q", query, status, body, want)
		}
	}
	if n := len(fake.requests()); n != 0 {
		t.Errorf("envd heard %d requests", n)
	}
}

// A sandbox that does not exist is E2B's 404; a paused one has no sample
// (an empty list), and its envd is not asked.
func TestMetricsOfAMissingAndAPausedSandbox(t *testing.T) {
	t.Parallel()
	fake := &fakeEnvd{status: 200, body: envdMetrics0210}
	url := metricsEngine(t, fake)
	if status, body := get(t, url+"/sandboxes/gone/metrics"); status != 404 || !strings.Contains(body, `"code":404`) {
		t.Errorf("missing: %d %s", status, body)
	}
	if status, body := get(t, url+"/sandboxes/asleep/metrics"); status != 200 || body != "[]" {
		t.Errorf("paused: %d %s", status, body)
	}
	if n := len(fake.requests()); n != 0 {
		t.Errorf("envd heard %d requests", n)
	}
}

// An envd without the route, or with an answer abx cannot read, is a 502
// in E2B's envelope with abx's message, which names envd's version.
func TestMetricsFromAnEnvdThatCannotGiveThem(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"no route", 404, "404 page not found\n", "envd 0.2.10 in this sandbox has no /metrics"},
		{"not its JSON", 200, "<html>", "envd 0.2.10 answered /metrics with something abx cannot read"},
		{"a field missing", 200, `{"ts":1,"cpu_count":1,"cpu_used_pct":1,"mem_total":1,"mem_used":1,"disk_used":1}`, "no disk_total"},
	} {
		url := metricsEngine(t, &fakeEnvd{status: tc.status, body: tc.body})
		status, body := get(t, url+"/sandboxes/sb/metrics")
		var e struct {
			Code    int
			Message string
			AbxCode string
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || status != 502 || e.Code != 502 || e.AbxCode != "E5004" ||
			!strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %d %s, want 502 E5004 with %q", tc.name, status, body, tc.want)
		}
	}
}

// GET /sandboxes/metrics answers the running sandboxes named, by ID; one
// that is paused or does not exist is left out.
func TestMetricsOfSeveralSandboxes(t *testing.T) {
	t.Parallel()
	url := metricsEngine(t, &fakeEnvd{status: 200, body: envdMetrics0210})
	status, body := get(t, url+"/sandboxes/metrics?sandbox_ids=sb,asleep,gone,other,sb")
	want := `{"sandboxes":{"other":` + metric0210 + `,"sb":` + metric0210 + `}}`
	if status != 200 || body != want {
		t.Errorf("got %d %s\nwant 200 %s", status, body, want)
	}
	if status, body := get(t, url+"/sandboxes/metrics?sandbox_ids=gone"); status != 200 || body != `{"sandboxes":{}}` {
		t.Errorf("none running: %d %s", status, body)
	}
	ids := make([]string, maxIDs+1)
	for i := range ids {
		ids[i] = "s" + strconv.Itoa(i)
	}
	for _, query := range []string{"", "?sandbox_ids=", "?sandbox_ids=" + strings.Join(ids, ",")} {
		if status, body := get(t, url+"/sandboxes/metrics"+query); status != 400 || !strings.Contains(body, `"code":400`) {
			t.Errorf("%q: %d %s", query, status, body)
		}
	}
}

// maxIDs is how many sandboxes E2B lets one GET /sandboxes/metrics name.
const maxIDs = 100

// One sandbox whose envd fails fails the whole answer, naming it.
func TestMetricsOfSeveralNamesTheOneThatFailed(t *testing.T) {
	t.Parallel()
	url := metricsEngine(t, &fakeEnvd{status: 404, body: "404 page not found\n"})
	status, body := get(t, url+"/sandboxes/metrics?sandbox_ids=sb")
	if status != 502 || !strings.Contains(body, "sandbox sb: envd 0.2.10 in this sandbox has no /metrics") {
		t.Errorf("got %d %s", status, body)
	}
}

// A provider that does not declare sandbox.metrics says so on both routes.
func TestMetricsOfAProviderWithoutThem(t *testing.T) {
	t.Parallel()
	url := metricsEngine(t, &fakeEnvd{status: 200, body: envdMetrics0210}, provider.SandboxLifecycle)
	for _, path := range []string{"/sandboxes/sb/metrics", "/sandboxes/metrics?sandbox_ids=sb"} {
		if status, body := get(t, url+path); status != 501 || !strings.Contains(body, `"abxCode":"E8004"`) ||
			!strings.Contains(body, "sandbox.metrics") {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
}

// Every route asks the operations, which check the capability before the
// provider hears of it: kill and timeout on a provider without them are
// E8004, as pause, resume and metrics are (the provider here would fail
// the test if it were called at all).
func TestRoutesNeedTheirCapabilities(t *testing.T) {
	t.Parallel()
	url := metricsEngine(t, &fakeEnvd{status: 200, body: envdMetrics0210}, provider.SandboxMetrics)
	for _, r := range []struct{ method, path, capability string }{
		{"DELETE", "/sandboxes/sb", "sandbox.lifecycle"},
		{"POST", "/sandboxes/sb/timeout", "sandbox.timeout"},
		{"POST", "/sandboxes/sb/pause", "sandbox.pause"},
		{"POST", "/sandboxes/sb/resume", "sandbox.pause"},
		{"POST", "/sandboxes/sb/connect", "sandbox.lifecycle"},
		{"GET", "/sandboxes/sb", "sandbox.lifecycle"},
		{"GET", "/v2/sandboxes", "sandbox.lifecycle"},
		{"POST", "/sandboxes", "sandbox.lifecycle"},
	} {
		req, err := http.NewRequest(r.method, url+r.path, strings.NewReader(`{"timeout":60,"templateID":"base"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 501 || !strings.Contains(string(b), `"abxCode":"E8004"`) || !strings.Contains(string(b), r.capability) {
			t.Errorf("%s %s: %d %s", r.method, r.path, resp.StatusCode, b)
		}
	}
}
