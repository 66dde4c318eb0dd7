//go:build linux

package envd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	client "github.com/abx-dev/abx/internal/envd"
)

// startMetered serves an envd, isolated or not, and returns a client of it
// as user, the server and its URL.
func startMetered(t *testing.T, isolated bool) (*client.Client, *Server, string) {
	t.Helper()
	opts := Options{Root: filepath.Join(t.TempDir(), "sandbox"), AccessToken: token}
	if isolated {
		jailtest.Need(t)
		opts.Isolated, opts.Hide = true, []string{filepath.Dir(opts.Root)}
	}
	s := New(opts)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	h := http.Header{}
	h.Set("X-Access-Token", token)
	return client.New(ts.Client(), client.Endpoint{URL: ts.URL, Header: h, Version: "0.2.10"}, User), s, ts.URL
}

func getMetrics(t *testing.T, url, tok string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url+"/metrics", nil)
	if tok != "" {
		req.Header.Set("X-Access-Token", tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

func sample(t *testing.T, c *client.Client) *client.Metrics {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	m, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// saneMetrics checks what holds of every sample.
func saneMetrics(t *testing.T, m *client.Metrics) {
	t.Helper()
	if m.CPUCount < 1 || m.CPUUsedPct < 0 || m.CPUUsedPct > 100 || m.MemTotal <= 0 || m.MemUsed > m.MemTotal ||
		m.DiskTotal <= 0 || m.DiskUsed > m.DiskTotal || time.Since(m.Time) > time.Hour || time.Until(m.Time) > time.Hour {
		t.Errorf("not a sane sample: %+v", m)
	}
}

// /metrics answers envd 0.2.10's object, with its fields and no other,
// to the access token only; a method other than GET is refused.
func TestMetricsAnswerAsEnvd0210(t *testing.T) {
	t.Parallel()
	c, _, url := startMetered(t, false)
	status, header, body := getMetrics(t, url, token)
	if status != http.StatusOK || header.Get("Content-Type") != "application/json" || header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v %s", status, header, body)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var keys []string
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"cpu_count", "cpu_used_pct", "disk_total", "disk_used", "mem_total", "mem_total_mib", "mem_used", "mem_used_mib", "ts"}
	if !slices.Equal(keys, want) {
		t.Errorf("fields %v, want %v", keys, want)
	}
	var a metricsAnswer
	if err := json.Unmarshal(body, &a); err != nil || a.MemTotalMiB != a.MemTotal>>20 || a.MemUsedMiB != a.MemUsed>>20 {
		t.Errorf("MiB are not the bytes' (%v): %s", err, body)
	}
	for range 3 {
		saneMetrics(t, sample(t, c))
	}

	if status, _, body := getMetrics(t, url, ""); status != http.StatusUnauthorized {
		t.Errorf("without the token: %d %s", status, body)
	}
	if status, _, body := getMetrics(t, url, "wrong"); status != http.StatusUnauthorized {
		t.Errorf("with a wrong token: %d %s", status, body)
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/metrics", nil)
	req.Header.Set("X-Access-Token", token)
	post, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = post.Body.Close()
	if post.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", post.StatusCode)
	}
}

// A 10 MB file written in the sandbox adds about 10 MB to disk_used: the
// sandbox's own directories are counted, isolated or not.
func TestMetricsCountTheSandboxFiles(t *testing.T) {
	t.Parallel()
	for _, isolated := range []bool{false, true} {
		name := "isolated"
		if !isolated {
			name = "not isolated"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _, _ := startMetered(t, isolated)
			before := sample(t, c)
			saneMetrics(t, before)
			const size = 10 << 20
			// Random bytes: a file system that compresses keeps them whole.
			if out, end, err := run(t, c, "head -c 10485760 /dev/urandom > ~/big && sync ~/big"); err != nil || end.ExitCode != 0 {
				t.Fatalf("write: %v %+v %q", err, end, out)
			}
			var grew int64
			deadline := time.Now().Add(2 * time.Minute) // a hang guard
			for {
				after := sample(t, c)
				saneMetrics(t, after)
				grew = after.DiskUsed - before.DiskUsed
				if grew >= size || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if grew < size || grew > size+size/5 {
				t.Errorf("disk_used grew by %d bytes for a file of %d", grew, size)
			}
		})
	}
}

// A busy loop in a sandbox whose box has a cgroup shows in cpu_used_pct:
// the box's own CPU time, against the CPUs it may use.
func TestMetricsCPUOfTheSandboxBox(t *testing.T) {
	t.Parallel()
	c, s, _ := startMetered(t, true)
	// The box boots with the first command.
	if _, end, err := run(t, c, "true"); err != nil || end.ExitCode != 0 {
		t.Fatalf("boot: %v %+v", err, end)
	}
	if _, _, ok := s.currentBox().CPU(); !ok {
		t.Skip("the box has no cgroup v2 group here (abx needs root, or a delegated group, on a machine with the unified hierarchy): its CPU time is not counted")
	}
	saneMetrics(t, sample(t, c))
	if _, end, err := run(t, c, "setsid sh -c 'while :; do :; done' >/dev/null 2>&1 < /dev/null &"); err != nil || end.ExitCode != 0 {
		t.Fatalf("start the loop: %v %+v", err, end)
	}
	// The loop keeps one CPU busy, on a loaded machine a good part of
	// one: a quarter of a CPU is plenty to tell it from an idle box.
	var busiest float64
	deadline := time.Now().Add(2 * time.Minute) // a hang guard
	for time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		m := sample(t, c)
		saneMetrics(t, m)
		busiest = max(busiest, m.CPUUsedPct/100*float64(m.CPUCount))
		if busiest >= 0.25 {
			t.Logf("busy: %+v", m)
			return
		}
	}
	t.Errorf("a busy loop in the box: at most %.2f CPUs used", busiest)
}

// Each CPU percent is of the time since the sample before, the first
// since the box started; another box starts over.
func TestCPUMeterSinceTheSampleBefore(t *testing.T) {
	t.Parallel()
	var m cpuMeter
	t0 := time.Unix(1000, 0)
	a, b := new(jail.Box), new(jail.Box)
	steps := []struct {
		box  *jail.Box
		used time.Duration
		at   time.Duration
		want float64
	}{
		{a, time.Second, 2 * time.Second, 25},     // 1 s of 2 CPUs × 2 s
		{a, 2 * time.Second, 3 * time.Second, 50}, // 1 s of 2 CPUs × 1 s
		{a, 2 * time.Second, 4 * time.Second, 0},  // idle
		{a, 9 * time.Second, 5 * time.Second, 100},
		{b, time.Second, 5 * time.Second, 10}, // since it started at t0
	}
	for i, st := range steps {
		if got := m.ofBox(st.box, t0, st.used, 2, t0.Add(st.at)); got != st.want {
			t.Errorf("step %d: %v%%, want %v%%", i, got, st.want)
		}
	}
}
