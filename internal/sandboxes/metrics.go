package sandboxes

import (
	"context"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The states of a sample.
const (
	Running = "running" // a sample, with its figures
	Paused  = "paused"  // no sample: the sandbox's envd does not run
	Ended   = "ended"   // no sample: the sandbox is gone
)

// Sample is one sandbox's sample of CPU, memory and disk (docs/json.md,
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

// Target is a sandbox an operation is asked of, with its state when a
// listing told it ("" when not).
type Target struct {
	ID, State string
}

// sampleConcurrency bounds the sandboxes asked at once: a sample of a
// hundred sandboxes is up to two requests each.
const sampleConcurrency = 8

// Sample takes a sample of each target, concurrently, and returns them in
// the targets' order. Every ID is checked before any sandbox is asked; a
// sandbox that has no sample says why in its Sample (its state, its Err).
func (s *Service) Sample(ctx context.Context, targets ...Target) ([]Sample, error) {
	op := Op("sandbox.metrics")
	for _, t := range targets {
		if _, err := s.on(ctx, op, t.ID); err != nil {
			return nil, err
		}
	}
	out := make([]Sample, len(targets))
	var g errgroup.Group
	g.SetLimit(sampleConcurrency)
	for i, t := range targets {
		g.Go(func() error {
			out[i] = s.sample(ctx, op, t.ID, t.State)
			return nil
		})
	}
	_ = g.Wait()
	return out, nil
}

// sample takes a sample of a sandbox from its envd, in the one order every
// door takes it: envd is asked first (one request when its client is
// kept); only when it cannot be asked is the sandbox read, to say why:
// paused (the gateway answers 502 for it) or gone. known is the sandbox's
// state when a listing told it: a paused one is not asked.
func (s *Service) sample(ctx context.Context, op *Operation, id, known string) Sample {
	if known == Paused {
		return Sample{SandboxID: id, State: Paused}
	}
	c, err := s.Envd(ctx, id, "", op.Capability)
	if err == nil {
		m, merr := c.Metrics(ctx)
		if merr == nil {
			return Sample{SandboxID: id, State: Running, Figures: &Figures{Timestamp: m.Time, CPUCount: m.CPUCount,
				CPUUsedPct: m.CPUUsedPct, MemUsed: m.MemUsed, MemTotal: m.MemTotal, MemCache: m.MemCache,
				DiskUsed: m.DiskUsed, DiskTotal: m.DiskTotal}}
		}
		s.Forget(id) // a resumed sandbox may have moved
		err = merr
	}
	out := Sample{SandboxID: id, Err: err}
	switch code := abxerr.From(err).Code; {
	case code == abxerr.Paused:
		// The read behind the client saw it paused and asked envd nothing.
		return Sample{SandboxID: id, State: Paused}
	case ctx.Err() != nil, out.Fatal(), code == abxerr.InvalidInput, code == abxerr.Unsupported:
		return out // envd answered, or nothing was sent: that is the reason
	}
	p, perr := s.Provider()
	if perr != nil {
		return out
	}
	sb, gerr := p.Get(ctx, id)
	switch {
	case gerr != nil && abxerr.From(gerr).Code == abxerr.NotFound:
		return Sample{SandboxID: id, State: Ended, Err: gerr}
	case gerr == nil && sb.State == Paused:
		return Sample{SandboxID: id, State: Paused}
	}
	return out
}
