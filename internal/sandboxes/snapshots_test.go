package sandboxes

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// snapper is a provider that takes snapshots and makes clones, the
// failing ones as fail says.
type snapper struct {
	provider.Provider
	mu      sync.Mutex
	opts    []provider.SnapshotOptions
	creates []provider.CreateRequest
	n       atomic.Int32
	inside  atomic.Int32 // creates under way at once
	most    atomic.Int32
	fail    func(n int) error
}

func (p *snapper) Snapshot(_ context.Context, id string, o provider.SnapshotOptions) (*provider.Snapshot, error) {
	p.mu.Lock()
	p.opts = append(p.opts, o)
	p.mu.Unlock()
	return &provider.Snapshot{SnapshotID: "snap-1", SandboxID: id, Names: []string{}}, nil
}

func (p *snapper) Snapshots(context.Context, provider.SnapshotListOptions) ([]provider.Snapshot, error) {
	return nil, nil
}

func (p *snapper) DeleteSnapshot(context.Context, string) error { return nil }

func (p *snapper) Create(_ context.Context, req provider.CreateRequest) (*provider.Sandbox, error) {
	n := int(p.n.Add(1))
	now := p.inside.Add(1)
	defer p.inside.Add(-1)
	for {
		most := p.most.Load()
		if now <= most || p.most.CompareAndSwap(most, now) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	p.mu.Lock()
	p.creates = append(p.creates, req)
	p.mu.Unlock()
	if p.fail != nil {
		if err := p.fail(n); err != nil {
			return nil, err
		}
	}
	return &provider.Sandbox{SandboxID: "clone-" + string(rune('a'+n-1)), TemplateID: req.Template, State: "running"}, nil
}

// A fork takes one snapshot that keeps the sandbox running, then makes its
// clones, at most forkAtOnce at a time, each with the fork's lifetime and
// metadata; a clone that fails is reported, the others kept.
func TestAForkKeepsTheClonesMadeAndReportsTheOthers(t *testing.T) {
	t.Parallel()
	p := &snapper{fail: func(n int) error {
		if n == 3 {
			return abxerr.New(abxerr.Forbidden, "quota exceeded")
		}
		return nil
	}}
	s := service(p, 0, provider.SandboxSnapshot, provider.SandboxLifecycle)
	r, err := s.Fork(t.Context(), "sb-1", ForkRequest{Count: 12, Timeout: time.Hour, Metadata: map[string]string{"try": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.opts) != 1 || p.opts[0].KeepRunning == nil || !*p.opts[0].KeepRunning {
		t.Errorf("the fork's snapshot: %+v", p.opts)
	}
	if len(r.Clones) != 11 || len(r.Failed) != 1 || r.Failed[0].Error != "quota exceeded" || r.SnapshotID != "snap-1" {
		t.Errorf("fork: %d clones, failed %+v", len(r.Clones), r.Failed)
	}
	if e := abxerr.From(r.Failed[0].Err()); e.Code != abxerr.Forbidden {
		t.Errorf("the failure's error: %v", e)
	}
	for _, c := range p.creates {
		if c.Template != "snap-1" || c.Timeout != time.Hour || c.Metadata["try"] != "2" {
			t.Errorf("a clone's request: %+v", c)
		}
	}
	if most := p.most.Load(); most > forkAtOnce {
		t.Errorf("%d clones made at once, want at most %d", most, forkAtOnce)
	}
}

// What a snapshot, a fork or a clone's name cannot be is refused before
// anything is sent.
func TestSnapshotInputsAreCheckedFirst(t *testing.T) {
	t.Parallel()
	p := &snapper{}
	s := service(p, 0, provider.SandboxSnapshot, provider.SandboxLifecycle)
	ctx := t.Context()
	for name, call := range map[string]func() error{
		"contents": func() error {
			_, err := s.Snapshot(ctx, "sb", provider.SnapshotOptions{Contents: []string{"disk"}})
			return err
		},
		"ttl": func() error {
			_, err := s.Snapshot(ctx, "sb", provider.SnapshotOptions{TTL: 31 * 24 * time.Hour})
			return err
		},
		"id":       func() error { _, err := s.Snapshot(ctx, "../x", provider.SnapshotOptions{}); return err },
		"count":    func() error { _, err := s.Fork(ctx, "sb", ForkRequest{Count: MaxForks + 1}); return err },
		"no count": func() error { _, err := s.Fork(ctx, "sb", ForkRequest{}); return err },
		"fork name": func() error {
			_, err := s.Fork(ctx, "sb", ForkRequest{Count: 1, Metadata: map[string]string{"e2b.agents.kruise.io/sandbox-name": "x"}})
			return err
		},
		"both names": func() error {
			_, err := s.Create(ctx, provider.CreateRequest{Template: "snap-1", Name: "a", GenerateName: "b"})
			return err
		},
		"snapshot id": func() error { return s.DeleteSnapshot(ctx, "a/b") },
	} {
		if e := abxerr.From(call()); e == nil || e.Code != abxerr.InvalidInput {
			t.Errorf("%s: %v, want E1002", name, e)
		}
	}
	if len(p.opts) != 0 || len(p.creates) != 0 {
		t.Errorf("sent: %v %v", p.opts, p.creates)
	}
	// Contents are read as the server does: each once, trimmed.
	if _, err := s.Snapshot(ctx, "sb", provider.SnapshotOptions{Contents: []string{" Filesystem", "memory", "filesystem"}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.opts[0].Contents, ","); got != "filesystem,memory" {
		t.Errorf("contents sent %q", got)
	}
	// Without the capability: E8004, before anything.
	bare := service(p, 0, provider.SandboxLifecycle)
	if _, err := bare.Snapshot(ctx, "sb", provider.SnapshotOptions{}); abxerr.From(err).Code != abxerr.Unsupported {
		t.Errorf("without the capability: %v", err)
	}
	if _, err := bare.Create(ctx, provider.CreateRequest{Template: "snap-1", Name: "a"}); abxerr.From(err).Code != abxerr.Unsupported {
		t.Errorf("a clone's name without the capability: %v", err)
	}
}
