// Package metrics takes samples of sandboxes' CPU, memory and disk from
// their envd (GET /metrics), and says why a sandbox has none: paused, or
// gone. `abx metrics` and the MCP tool sandbox_metrics print what it takes
// (docs/metrics.md).
package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/provider"
)

// The states of a sample.
const (
	Running = "running" // a sample, with its figures
	Paused  = "paused"  // no sample: the sandbox's envd does not run
	Ended   = "ended"   // no sample: the sandbox is gone
)

// Sample is one sandbox's sample as abx prints it (docs/json.md,
// metrics): State is Running with the figures, or Paused or Ended without.
type Sample struct {
	SandboxID string `json:"sandboxID"`
	State     string `json:"state"`
	*Figures

	// Err is why there is no sample: E3001 for an ended sandbox, or the
	// failure. Nil for a running or a paused one.
	Err error `json:"-"`
}

// Figures are envd's numbers, sizes in bytes.
type Figures struct {
	Timestamp  time.Time `json:"timestamp"`
	CPUCount   int       `json:"cpuCount"`
	CPUUsedPct float64   `json:"cpuUsedPct"`
	MemUsed    int64     `json:"memUsed"`
	MemTotal   int64     `json:"memTotal"`
	MemCache   int64     `json:"memCache"`
	DiskUsed   int64     `json:"diskUsed"`
	DiskTotal  int64     `json:"diskTotal"`
}

// Fatal says whether a sample's failure is envd's own answer (a route it
// lacks, a body abx cannot read, a refused token): asking again will not
// help.
func (s Sample) Fatal() bool {
	if s.Err == nil || s.State == Ended {
		return false
	}
	c := abxerr.From(s.Err).Code
	return c == abxerr.BadResponse || c == abxerr.Unauthorized
}

// Sampler takes samples, keeping each sandbox's envd client for the next
// sample (one request a sample, not two). It is safe for concurrent use.
type Sampler struct {
	Provider provider.Provider
	// Envd reads the sandbox and returns a client of its envd
	// (cmdutil.Factory.Envd).
	Envd func(ctx context.Context, id, user string) (*envd.Client, error)

	mu      sync.Mutex
	clients map[string]*envd.Client
}

// Sample asks the sandbox's envd for its figures. known is the sandbox's
// state when a listing told it ("" when not): a paused one is not asked.
// When envd cannot be asked, the sandbox is read to say why: paused (the
// gateway answers 502 for it) or gone.
func (s *Sampler) Sample(ctx context.Context, id, known string) Sample {
	if known == Paused {
		return Sample{SandboxID: id, State: Paused}
	}
	m, err := s.ask(ctx, id)
	if err == nil {
		return Sample{SandboxID: id, State: Running, Figures: &Figures{Timestamp: m.Time, CPUCount: m.CPUCount,
			CPUUsedPct: m.CPUUsedPct, MemUsed: m.MemUsed, MemTotal: m.MemTotal, MemCache: m.MemCache,
			DiskUsed: m.DiskUsed, DiskTotal: m.DiskTotal}}
	}
	out := Sample{SandboxID: id, Err: err}
	if abxerr.From(err).Code == abxerr.Paused {
		// The read behind the client saw it paused and asked envd nothing.
		return Sample{SandboxID: id, State: Paused}
	}
	if ctx.Err() != nil || out.Fatal() {
		return out // envd answered: its answer is the reason
	}
	sb, gerr := s.Provider.Get(ctx, id)
	switch {
	case gerr != nil && abxerr.From(gerr).Code == abxerr.NotFound:
		return Sample{SandboxID: id, State: Ended, Err: gerr}
	case gerr == nil && sb.State == Paused:
		return Sample{SandboxID: id, State: Paused}
	}
	return out
}

// ask reads the sample, with the client of an earlier sample when there
// is one; a failure drops it (a resumed sandbox may have moved).
func (s *Sampler) ask(ctx context.Context, id string) (*envd.Metrics, error) {
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		var err error
		if c, err = s.Envd(ctx, id, ""); err != nil {
			return nil, err
		}
	}
	m, err := c.Metrics(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients == nil {
		s.clients = map[string]*envd.Client{}
	}
	if err != nil {
		delete(s.clients, id)
	} else {
		s.clients[id] = c
	}
	return m, err
}

// PausedError is the error of a sandbox named that is paused: the one
// error of a paused sandbox's data plane (E2001). The door adds its hint.
func PausedError(id string) *abxerr.Error {
	return provider.PausedError(id)
}
