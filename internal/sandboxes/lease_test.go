package sandboxes

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// flaky answers SetTimeout as down is set: failing while it is.
type flaky struct {
	fake
	mu    sync.Mutex
	down  bool
	sets  int
	fails int
}

func (f *flaky) SetTimeout(context.Context, string, time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		f.fails++
		return errors.New("connection refused")
	}
	f.sets++
	return nil
}

func (f *flaky) set(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *flaky) counts() (sets, fails int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sets, f.fails
}

// The shortest lifetime a deadline may be set to, as the lease in these
// tests: renewed every half second.
const testLease = 1500 * time.Millisecond

func TestALeaseIsRenewedEveryThirdOfIt(t *testing.T) {
	t.Parallel()
	p := &flaky{}
	l := service(p, 0, provider.SandboxTimeout).Hold("sb", testLease, time.Now())
	deadline := time.Now().Add(10 * time.Second)
	for sets, _ := p.counts(); sets < 3; sets, _ = p.counts() {
		if time.Now().After(deadline) {
			t.Fatalf("%d renewals in 10s", sets)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-l.Lost():
		t.Fatal("lost while every renewal succeeded")
	default:
	}
	l.Stop()
	sets, _ := p.counts()
	time.Sleep(testLease)
	if now, _ := p.counts(); now != sets {
		t.Fatalf("renewed after Stop: %d, then %d", sets, now)
	}
}

// Renewals that fail are tried again within the lease: an outage shorter
// than it costs nothing.
func TestALeaseRidesOutAShortOutage(t *testing.T) {
	t.Parallel()
	p := &flaky{}
	l := service(p, 0, provider.SandboxTimeout).Hold("sb", 3*time.Second, time.Now())
	defer l.Stop()
	// Down from before the first renewal (at 1s) until after it: the
	// retries, a second apart, take it up again within the lease.
	p.set(true)
	deadline := time.Now().Add(10 * time.Second)
	for _, fails := p.counts(); fails < 1; _, fails = p.counts() {
		if time.Now().After(deadline) {
			t.Fatal("no renewal was tried")
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.set(false)
	for sets, _ := p.counts(); sets < 2; sets, _ = p.counts() {
		if time.Now().After(deadline) {
			t.Fatalf("renewals did not recover: %d", sets)
		}
		select {
		case <-l.Lost():
			t.Fatal("lost during an outage shorter than the lease")
		default:
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ok, failed := l.Renewals(); ok < 2 || failed < 1 {
		t.Fatalf("renewals %d, failed %d", ok, failed)
	}
}

// When no renewal succeeds within the lease, the holder is told: the
// sandbox may be gone.
func TestALeaseThatRunsOutIsLost(t *testing.T) {
	t.Parallel()
	p := &flaky{}
	p.set(true)
	start := time.Now()
	l := service(p, 0, provider.SandboxTimeout).Hold("sb", testLease, start)
	defer l.Stop()
	select {
	case <-l.Lost():
	case <-time.After(30 * time.Second):
		t.Fatal("never lost")
	}
	if since := time.Since(start); since < testLease {
		t.Fatalf("lost after %s, before the lease of %s ran out", since, testLease)
	}
}

// gone answers every renewal as the service does for a sandbox it no
// longer has.
type gone struct{ fake }

func (*gone) SetTimeout(_ context.Context, id string, _ time.Duration) error {
	return abxerr.New(abxerr.NotFound, "sandbox %s not found", id)
}

// A sandbox the service says is gone is lost at its first renewal, not
// after retries for the rest of the lease.
func TestALeaseOfAGoneSandboxIsLostAtOnce(t *testing.T) {
	t.Parallel()
	lease := 30 * time.Second
	start := time.Now()
	l := service(&gone{}, 0, provider.SandboxTimeout).Hold("sb", lease, start)
	defer l.Stop()
	select {
	case <-l.Lost():
	case <-time.After(lease):
		t.Fatal("not lost within the lease")
	}
	if since := time.Since(start); since > lease/2 {
		t.Fatalf("lost after %s: the renewals went on after the service said the sandbox was gone", since)
	}
}
