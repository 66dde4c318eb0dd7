package sandboxes

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Samples of several sandboxes come in the order asked; an ID that could
// not be one refuses the whole call before any sandbox is asked.
func TestSamplesOfSeveralSandboxes(t *testing.T) {
	t.Parallel()
	envd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"ts":1767366005,"cpu_count":2,"cpu_used_pct":12.5,"mem_total":1,"mem_used":1,"disk_used":1,"disk_total":2}`))
	}))
	t.Cleanup(envd.Close)
	p := &fake{url: envd.URL}
	s := service(p, 0, provider.SandboxMetrics)
	targets := []Target{{ID: "sb-a"}, {ID: "sb-b", State: Paused}, {ID: "sb-c"}}
	for range 10 {
		targets = append(targets, Target{ID: "sb-d"})
	}
	samples, err := s.Sample(t.Context(), targets...)
	if err != nil || len(samples) != len(targets) {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	for i, sm := range samples {
		want := Running
		if targets[i].State == Paused {
			want = Paused
		}
		if sm.SandboxID != targets[i].ID || sm.State != want {
			t.Errorf("sample %d: %+v, want %s %s", i, sm, targets[i].ID, want)
		}
	}
	before := p.reads.Load()
	if _, err := s.Sample(t.Context(), Target{ID: "sb-a"}, Target{ID: ".."}); abxerr.From(err).Code != abxerr.InvalidInput {
		t.Errorf("an ID that moves the path: %v", err)
	}
	if p.reads.Load() != before {
		t.Error("a sandbox was asked before every ID was checked")
	}
}
