package sandboxes

import (
	"context"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Lease keeps a sandbox alive for as long as its holder runs: the sandbox
// is made with a short lifetime (the lease), which the holder renews
// every third of it (POST /sandboxes/{id}/timeout). If the holder dies by
// any means, a SIGKILL, a power cut, a lost network, nothing renews it
// and the service ends the sandbox within the lease (docs/run.md).
type Lease struct {
	s  *Service
	id string
	d  time.Duration

	stop    chan struct{}
	stopped chan struct{}
	lost    chan struct{}

	mu sync.Mutex
	// until is when the service ends the sandbox unless renewed: the last
	// renewal's start, plus the lease (a renewal counts from when it was
	// sent, which is never later than the service's clock reads it).
	until    time.Time
	renewals int
	failures int
}

// MinLease is the shortest lease: a new sandbox's shortest lifetime.
const MinLease = MinCreateLifetime

// Hold starts renewing the lease of sandbox id, made with lifetime d at
// made: every d/3, each renewal tried again until it succeeds or the
// lease runs out. Lost is closed then: the sandbox may be gone.
func (s *Service) Hold(id string, d time.Duration, made time.Time) *Lease {
	l := &Lease{s: s, id: id, d: d, until: made.Add(d),
		stop: make(chan struct{}), stopped: make(chan struct{}), lost: make(chan struct{})}
	go l.renew()
	return l
}

// Lost is closed when the lease may have run out: no renewal succeeded
// within it.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Stop ends the renewals; the sandbox lives on until its lease's end, or
// its holder's next word (kill, or a lifetime of its own).
func (l *Lease) Stop() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.stopped
}

// Renewals says how many renewals succeeded and how many attempts failed.
func (l *Lease) Renewals() (ok, failed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.renewals, l.failures
}

// retryEvery spaces the attempts of a renewal that failed.
const retryEvery = time.Second

func (l *Lease) renew() {
	defer close(l.stopped)
	next := time.NewTimer(l.d / 3)
	defer next.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-next.C:
		}
		l.mu.Lock()
		until := l.until
		l.mu.Unlock()
		if !time.Now().Before(until) {
			close(l.lost)
			return
		}
		// One attempt may take what is left of the lease, no more: past
		// it, a late success would not mean the sandbox is still there.
		ctx, cancel := context.WithDeadline(context.Background(), until)
		sent := time.Now()
		go func() {
			select {
			case <-l.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		err := l.s.SetTimeout(ctx, l.id, l.d)
		cancel()
		l.mu.Lock()
		if err == nil {
			l.until, l.renewals = sent.Add(l.d), l.renewals+1
			next.Reset(l.d / 3)
		} else {
			l.failures++
			next.Reset(min(retryEvery, time.Until(l.until)))
		}
		l.mu.Unlock()
	}
}

// EndBound bounds a throwaway sandbox's end (its kill, or its lifetime
// set with keep), whatever stopped the job: the lease ends it anyway.
const EndBound = 30 * time.Second

// Ending is how a throwaway sandbox ended.
type Ending struct {
	// Kept is true when it was left running (keep), false when killed.
	Kept bool
	// Err is the kill's or the keep's error; a sandbox that was gone
	// already is killed.
	Err error
}

// Throwaway is one job in a sandbox of its own (abx run, the MCP tool
// sandbox_run): req is made with the lease as its lifetime and held
// (Hold) while work runs, then killed within EndBound, or with keep > 0
// given that lifetime instead, whatever work did. (A lease shorter than a
// new sandbox's shortest lifetime is made with that one, then renewed as
// asked.) work gets the sandbox
// and a channel closed when the lease is lost (the sandbox may be gone:
// the job should stop). A sandbox that could not be made returns create's
// error, and no Ending.
func (s *Service) Throwaway(ctx context.Context, req provider.CreateRequest, lease, keep time.Duration,
	work func(sb *provider.Sandbox, lost <-chan struct{}) error) (*Ending, error) {
	start := time.Now()
	req.Timeout = max(lease, MinCreateLifetime)
	sb, err := s.Create(ctx, req)
	if err != nil {
		return nil, err
	}
	l := s.Hold(sb.SandboxID, lease, start)
	err = work(sb, l.Lost())
	l.Stop()
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), EndBound)
	defer cancel()
	if keep > 0 {
		return &Ending{Kept: true, Err: s.SetTimeout(ectx, sb.SandboxID, keep)}, err
	}
	kerr := s.Kill(ectx, sb.SandboxID)
	if kerr != nil && abxerr.From(kerr).Code == abxerr.NotFound {
		kerr = nil // gone already: what the kill was for
	}
	return &Ending{Err: kerr}, err
}
