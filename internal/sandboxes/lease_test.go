package sandboxes

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
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

// The lease tests run in a bubble of testing/synctest: the lease's timers
// and clock are the bubble's, which moves on as soon as every goroutine
// in it waits, so a renewal due in 10 s is due at once and a test counts
// renewals exactly, on a machine however busy.

func TestALeaseIsRenewedEveryThirdOfIt(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &flaky{}
		l := service(p, 0, provider.SandboxTimeout).Hold("sb", testLease, time.Now())
		// Renewals at 0.5 s, 1 s and 1.5 s.
		time.Sleep(testLease + testLease/6)
		synctest.Wait()
		if sets, fails := p.counts(); sets != 3 || fails != 0 {
			t.Fatalf("%d renewals, %d failed, in %s; want 3 and 0", sets, fails, testLease+testLease/6)
		}
		select {
		case <-l.Lost():
			t.Fatal("lost while every renewal succeeded")
		default:
		}
		l.Stop()
		time.Sleep(testLease)
		synctest.Wait()
		if sets, _ := p.counts(); sets != 3 {
			t.Fatalf("renewed after Stop: 3, then %d", sets)
		}
	})
}

// Renewals that fail are tried again within the lease: an outage shorter
// than it costs nothing.
func TestALeaseRidesOutAShortOutage(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &flaky{}
		l := service(p, 0, provider.SandboxTimeout).Hold("sb", 3*time.Second, time.Now())
		defer l.Stop()
		// Down from before the first renewal (at 1 s) until after it: the
		// retry a second later (at 2 s) takes it up again within the
		// lease, and the next renewals come a third of it apart (3 s, 4 s).
		p.set(true)
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		if sets, fails := p.counts(); sets != 0 || fails != 1 {
			t.Fatalf("at 1.5 s: %d renewals, %d failed; want 0 and 1", sets, fails)
		}
		p.set(false)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		select {
		case <-l.Lost():
			t.Fatal("lost during an outage shorter than the lease")
		default:
		}
		if ok, failed := l.Renewals(); ok != 3 || failed != 1 {
			t.Fatalf("at 4.5 s: renewals %d, failed %d; want 3 and 1", ok, failed)
		}
	})
}

// When no renewal succeeds within the lease, the holder is told: the
// sandbox may be gone.
func TestALeaseThatRunsOutIsLost(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := &flaky{}
		p.set(true)
		start := time.Now()
		l := service(p, 0, provider.SandboxTimeout).Hold("sb", testLease, start)
		defer l.Stop()
		select {
		case <-l.Lost():
		case <-time.After(time.Minute):
			t.Fatal("never lost")
		}
		// Tried at 0.5 s, again a second later, at the lease's end: lost
		// then, not before.
		if since := time.Since(start); since != testLease {
			t.Fatalf("lost after %s, want at the lease's end, %s", since, testLease)
		}
		if _, fails := p.counts(); fails != 1 {
			t.Fatalf("%d renewals tried, want 1", fails)
		}
	})
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
	synctest.Test(t, func(t *testing.T) {
		lease := 30 * time.Second
		start := time.Now()
		l := service(&gone{}, 0, provider.SandboxTimeout).Hold("sb", lease, start)
		defer l.Stop()
		select {
		case <-l.Lost():
		case <-time.After(lease):
			t.Fatal("not lost within the lease")
		}
		if since := time.Since(start); since != lease/3 {
			t.Fatalf("lost after %s, want at the first renewal (%s): the renewals went on after the service said the sandbox was gone", since, lease/3)
		}
	})
}
