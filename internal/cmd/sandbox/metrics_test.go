//go:build unix

package sandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// envd 0.2.10's answer to GET /metrics, as a real one sends it.
const metrics0210 = `{"ts":1767366005,"cpu_count":2,"cpu_used_pct":12.5,"mem_total_mib":985,"mem_used_mib":211,` +
	`"mem_total":1032871936,"mem_used":221249536,"disk_used":1415823360,"disk_total":2040373248}`

// metricsFake is a cluster for `abx metrics`: sandboxes by ID with their
// state, and an envd per sandbox that answers /metrics like 0.2.10 (or
// with body, when set) until the sandbox is killed or paused, when the
// gateway answers 502 as OpenKruise's does.
type metricsFake struct {
	stub
	srv *httptest.Server

	mu     sync.Mutex
	states map[string]string // running, paused; missing: gone
	body   string
	asks   atomic.Int32
	// after, when set, runs after each answer of envd (a test's hook).
	after func(id string, n int32)
	// resumeAfter, when set, resumes a paused sandbox once it has been
	// read that many times more.
	resumeAfter int
	// envdAt and version, when set, are the envd every sandbox has
	// instead of the fake's own 0.2.10.
	envdAt, version string
}

func newMetricsFake(t *testing.T, states map[string]string) *metricsFake {
	t.Helper()
	m := &metricsFake{states: states, body: metrics0210}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("E2b-Sandbox-Id")
		if r.URL.Path != "/metrics" || r.Header.Get("X-Access-Token") != "tok-"+id {
			http.Error(w, "unexpected", http.StatusTeapot)
			return
		}
		m.mu.Lock()
		state, body := m.states[id], m.body
		m.mu.Unlock()
		if state != "running" {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(`{"code":502,"message":"healthy sandbox not found: ` + id + `"}`))
			return
		}
		_, _ = w.Write([]byte(body))
		n := m.asks.Add(1)
		if m.after != nil {
			m.after(id, n)
		}
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *metricsFake) set(id, state string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if state == "" {
		delete(m.states, id)
		return
	}
	m.states[id] = state
}

func (m *metricsFake) Get(_ context.Context, id string) (*provider.Sandbox, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.states[id]
	if !ok {
		return nil, abxerr.New(abxerr.NotFound, "sandbox %s not found", id)
	}
	if st == "paused" && m.resumeAfter > 0 {
		if m.resumeAfter--; m.resumeAfter == 0 {
			m.states[id] = "running"
		}
	}
	s := sb
	s.SandboxID, s.State = id, st
	return &s, nil
}

func (m *metricsFake) List(context.Context, provider.ListOptions) ([]provider.Sandbox, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []provider.Sandbox
	for _, id := range []string{"sb-running", "sb-paused", "sb-other"} {
		if st, ok := m.states[id]; ok {
			out = append(out, provider.Sandbox{SandboxID: id, State: st})
		}
	}
	return out, nil
}

// Endpoint is the fake's data plane: it reads the sandbox first, as the
// real one does.
func (m *metricsFake) Endpoint(ctx context.Context, id string, port int) (*provider.Endpoint, error) {
	s, err := m.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("E2b-Sandbox-Id", id)
	h.Set("X-Access-Token", "tok-"+id)
	ep := &provider.Endpoint{SandboxID: id, Port: port, URL: m.srv.URL, Header: h, EnvdVersion: "0.2.10", State: s.State}
	if m.envdAt != "" {
		ep.URL, ep.EnvdVersion = m.envdAt, m.version
	}
	return ep, nil
}

// runMetricsOn runs `abx metrics` with set's options on the fake and
// returns stdout, stderr and the error.
func runMetricsOn(t *testing.T, m *metricsFake, tty bool, format output.Format, set func(*MetricsOptions)) (string, string, error) {
	t.Helper()
	f, s := factorytest.NewFactory(tty, nil, format)
	f.IO.Color = false
	opts := &MetricsOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(m), Interval: 10 * time.Millisecond}
	set(opts)
	err := runMetrics(t.Context(), opts)
	return s.Out.String(), s.ErrOut.String(), err
}

func TestMetricsShapes(t *testing.T) {
	t.Parallel()
	for _, fm := range []struct {
		name   string
		format output.Format
	}{{"json", output.JSON}, {"piped", output.Table}, {"name", output.Name}} {
		m := newMetricsFake(t, map[string]string{"sb-running": "running", "sb-paused": "paused"})
		out, errOut, err := runMetricsOn(t, m, false, fm.format, func(o *MetricsOptions) { o.IDs = []string{"sb-running"} })
		if err != nil {
			t.Fatal(err)
		}
		cmdtest.Golden(t, "metrics."+fm.name, out+stderrSection(errOut))
		out, errOut, err = runMetricsOn(t, m, false, fm.format, func(o *MetricsOptions) { o.All = true })
		if err != nil {
			t.Fatalf("--all with a paused sandbox: %v", err)
		}
		cmdtest.Golden(t, "metrics-all."+fm.name, out+stderrSection(errOut))
	}
	// On a terminal: sizes in binary units.
	m := newMetricsFake(t, map[string]string{"sb-running": "running"})
	out, _, err := runMetricsOn(t, m, true, output.Table, func(o *MetricsOptions) { o.IDs = []string{"sb-running"} })
	if err != nil || !strings.Contains(out, "211M/985M") || !strings.Contains(out, "1.3G/1.9G") ||
		!strings.Contains(out, "12.5") || strings.Contains(out, "TIME") {
		t.Errorf("terminal: %v\n%s", err, out)
	}
}

// On an 80-column terminal the table fits, each row on one line, every
// figure whole: with a sandbox ID as long as a cluster's
// (namespace--template-suffix), and under --watch, which adds each
// sample's time, with one of 26 characters.
func TestMetricsFitEightyColumns(t *testing.T) {
	t.Parallel()
	for _, watch := range []bool{false, true} {
		id := "default--code-interpreter-x7k2p"
		if watch {
			id = "default--python-3-12-x7k2p"
		}
		m := newMetricsFake(t, map[string]string{id: "running"})
		f, s := factorytest.NewFactory(true, nil, output.Table)
		f.IO.Color, f.IO.Width = false, 80
		opts := &MetricsOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(m), Interval: 10 * time.Millisecond,
			IDs: []string{id}, Watch: watch, Count: 1}
		if err := runMetrics(t.Context(), opts); err != nil {
			t.Fatalf("watch=%v: %v", watch, err)
		}
		out := s.Out.String()
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		for _, l := range lines {
			if w := len([]rune(strings.TrimRight(l, " "))); w > 80 {
				t.Errorf("watch=%v: a line of %d columns:\n%s", watch, w, out)
			}
		}
		if len(lines) != 2 || !strings.Contains(lines[1], id) || !strings.Contains(lines[1], "211M/985M") ||
			!strings.Contains(lines[1], "1.3G/1.9G") || strings.Contains(out, "…") || strings.Contains(lines[0], "TIME") != watch {
			t.Errorf("watch=%v: want a header and one whole row:\n%s", watch, out)
		}
	}
}

func TestMetricsWatchCountAndEnd(t *testing.T) {
	t.Parallel()
	m := newMetricsFake(t, map[string]string{"sb-running": "running"})
	out, _, err := runMetricsOn(t, m, false, output.JSON, func(o *MetricsOptions) {
		o.IDs, o.Watch, o.Count = []string{"sb-running"}, true, 3
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("--watch --count 3 -o json printed %d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var s struct {
			SandboxID string  `json:"sandboxID"`
			State     string  `json:"state"`
			CPU       float64 `json:"cpuUsedPct"`
		}
		if err := json.Unmarshal([]byte(l), &s); err != nil || s.SandboxID != "sb-running" || s.State != "running" || s.CPU != 12.5 {
			t.Errorf("line %q: %+v %v", l, s, err)
		}
	}
	// One Envd (a read of the sandbox) for the whole watch: the client is kept.
	if m.asks.Load() != 3 {
		t.Errorf("%d asks of envd for 3 rounds", m.asks.Load())
	}

	// The sandbox is killed during the watch: a line says so, exit 0.
	m = newMetricsFake(t, map[string]string{"sb-running": "running"})
	m.after = func(id string, n int32) {
		if n == 2 {
			m.set(id, "")
		}
	}
	out, errOut, err := runMetricsOn(t, m, false, output.Table, func(o *MetricsOptions) {
		o.IDs, o.Watch = []string{"sb-running"}, true
	})
	if err != nil || strings.Count(out, "sb-running\t") != 2 || !strings.Contains(errOut, "sandbox sb-running ended") {
		t.Errorf("ended during --watch: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	// As JSON Lines: an event with state ended.
	m = newMetricsFake(t, map[string]string{"sb-running": "running"})
	m.after = func(id string, n int32) {
		if n == 1 {
			m.set(id, "")
		}
	}
	out, _, err = runMetricsOn(t, m, false, output.JSON, func(o *MetricsOptions) { o.IDs, o.Watch = []string{"sb-running"}, true })
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out), `{"sandboxID":"sb-running","state":"ended"}`) {
		t.Errorf("ended as JSON: %v\n%s", err, out)
	}
	// A paused sandbox is said once, then sampled again once resumed: it
	// pauses after the first sample and is resumed right after the read
	// that tells the sampler it is paused (that read still says paused;
	// the next round's finds it running), so one round of five has none.
	m = newMetricsFake(t, map[string]string{"sb-running": "running"})
	m.after = func(id string, n int32) {
		if n == 1 {
			m.set(id, "paused")
			m.resumeAfter = 1
		}
	}
	out, errOut, err = runMetricsOn(t, m, false, output.Table, func(o *MetricsOptions) {
		o.IDs, o.Watch, o.Count = []string{"sb-running"}, true, 5
	})
	if err != nil || strings.Count(errOut, "is paused") != 1 || strings.Count(out, "sb-running\t") != 4 {
		t.Errorf("paused during --watch: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
}

func TestMetricsErrors(t *testing.T) {
	t.Parallel()
	m := newMetricsFake(t, map[string]string{"sb-running": "running", "sb-paused": "paused"})
	for _, tc := range []struct {
		name  string
		ids   []string
		body  string
		watch bool
		code  abxerr.Code
		want  string
	}{
		{"paused", []string{"sb-paused"}, "", false, abxerr.Paused, "sandbox sb-paused is paused"},
		{"gone", []string{"sb-gone"}, "", false, abxerr.NotFound, "sb-gone not found"},
		{"gone, watched", []string{"sb-gone"}, "", true, abxerr.NotFound, "sb-gone not found"},
		{"a bad answer", []string{"sb-running"}, `{"ts":"soon"}`, false, abxerr.BadResponse, "envd 0.2.10 answered /metrics with something abx cannot read"},
		{"a bad answer, watched", []string{"sb-running"}, `<html>`, true, abxerr.BadResponse, "envd 0.2.10"},
	} {
		mm := m
		if tc.body != "" {
			mm = newMetricsFake(t, map[string]string{"sb-running": "running"})
			mm.body = tc.body
		}
		_, _, err := runMetricsOn(t, mm, false, output.Table, func(o *MetricsOptions) { o.IDs, o.Watch = tc.ids, tc.watch })
		e := abxerr.From(err)
		if err == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: got %v (%s), want %s %q", tc.name, err, e.Code, tc.code, tc.want)
		}
		if exit := abxerr.Exit(err, false); tc.code == abxerr.Paused && exit != 6 {
			t.Errorf("%s: exit %d, want 6", tc.name, exit)
		}
	}
	// Several named, one paused, one gone: a row for each in the table,
	// piped or not, with its state, as in the JSON; the exit says it.
	for _, tty := range []bool{false, true} {
		out, errOut, err := runMetricsOn(t, m, tty, output.Table, func(o *MetricsOptions) { o.IDs = []string{"sb-running", "sb-paused", "sb-gone"} })
		rows := strings.Split(strings.TrimSpace(out), "\n")
		if tty {
			rows = rows[1:]
		}
		want := []string{"sb-running\trunning\t", "sb-paused\tpaused\t-\t-\t-\t-\t-\t-\t-", "sb-gone\tended\t-\t-\t-\t-\t-\t-\t-"}
		if tty {
			want = []string{`^sb-running +running +\d`, `^sb-paused +paused +- +- +- +-$`, `^sb-gone +ended +- +- +- +-$`}
		}
		ok := len(rows) == 3
		for i := 0; ok && i < 3; i++ {
			if tty {
				ok = regexp.MustCompile(want[i]).MatchString(strings.TrimRight(rows[i], " "))
			} else {
				ok = strings.HasPrefix(rows[i], want[i])
			}
		}
		if !ok || abxerr.From(err).Code != abxerr.NotFound || !strings.Contains(errOut, "sb-paused is paused") {
			t.Errorf("tty=%v: three named, one paused, one gone: %v\nstdout:\n%s\nstderr:\n%s", tty, err, out, errOut)
		}
	}
	// Several named, one paused: the others print, and the exit says it.
	out, errOut, err := runMetricsOn(t, m, false, output.Table, func(o *MetricsOptions) { o.IDs = []string{"sb-running", "sb-paused"} })
	if abxerr.From(err).Code != abxerr.Paused || !strings.Contains(out, "sb-running\t") || !strings.Contains(errOut, "sb-paused is paused") {
		t.Errorf("two named, one paused: %v\n%s\n%s", err, out, errOut)
	}
	// One paused, one gone: both in the JSON, one error whose code is the
	// graver (not found, exit 3), said once.
	out, errOut, err = runMetricsOn(t, m, false, output.JSON, func(o *MetricsOptions) { o.IDs = []string{"sb-paused", "sb-gone", "sb-running"} })
	e := abxerr.From(err)
	if e.Code != abxerr.NotFound || !strings.Contains(e.Message, "2 of 3 sandboxes had no sample: sb-paused, sb-gone") ||
		!strings.Contains(out, `"state": "paused"`) || !strings.Contains(out, `"state": "ended"`) || !strings.Contains(out, `"cpuUsedPct": 12.5`) || errOut != "" {
		t.Errorf("paused and gone: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	// One named and paused: nothing on stdout, the error alone.
	out, errOut, err = runMetricsOn(t, m, false, output.JSON, func(o *MetricsOptions) { o.IDs = []string{"sb-paused"} })
	if abxerr.From(err).Code != abxerr.Paused || out != "" || errOut != "" {
		t.Errorf("one paused: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
}

func TestMetricsOfAnEnvdWithoutTheRoute(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	m := newMetricsFake(t, map[string]string{"sb-running": "running"})
	m.envdAt, m.version = srv.URL, "0.1.1"
	_, _, err := runMetricsOn(t, m, false, output.Table, func(o *MetricsOptions) { o.IDs = []string{"sb-running"} })
	e := abxerr.From(err)
	if e.Code != abxerr.BadResponse || !strings.Contains(e.Message, "envd 0.1.1 in this sandbox has no /metrics") || abxerr.Exit(err, false) != 1 {
		t.Errorf("got %v (%s, exit %d)", err, e.Code, abxerr.Exit(err, false))
	}
}

// Ctrl-C is how a --watch is meant to end: exit 0, no error line, the
// rows printed so far kept (docs/exit-codes.md).
func TestMetricsWatchEndsWellAtCtrlC(t *testing.T) {
	t.Parallel()
	m := newMetricsFake(t, map[string]string{"sb-running": "running"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m.after = func(_ string, n int32) {
		if n == 2 {
			cancel()
		}
	}
	f, s := factorytest.NewFactory(false, nil, output.Table)
	opts := &MetricsOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(m), Interval: 10 * time.Millisecond,
		IDs: []string{"sb-running"}, Watch: true}
	if err := runMetrics(ctx, opts); err != nil {
		t.Errorf("Ctrl-C ended --watch with %v", err)
	}
	if n := strings.Count(s.Out.String(), "sb-running\t"); n < 1 {
		t.Errorf("%d rows before Ctrl-C:\n%s", n, s.Out.String())
	}
}
