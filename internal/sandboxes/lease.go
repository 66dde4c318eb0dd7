package sandboxes

import (
	"context"
	"errors"
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

	// ctx lasts until Stop: a renewal under way ends with it.
	ctx     context.Context
	stop    context.CancelFunc
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

// DefaultLease is a throwaway sandbox's lease unless its job says
// otherwise (Job.Lease): long enough that a renewal rides out a minute's
// network trouble, short enough that a sandbox its holder lost ends soon.
const DefaultLease = 60 * time.Second

// Hold starts renewing the lease of sandbox id, made with lifetime d at
// made: every d/3, each renewal tried again until it succeeds or the
// lease runs out. Lost is closed then, or as soon as the service says the
// sandbox is gone.
func (s *Service) Hold(id string, d time.Duration, made time.Time) *Lease {
	ctx, stop := context.WithCancel(context.Background())
	l := &Lease{s: s, id: id, d: d, until: made.Add(d), ctx: ctx, stop: stop,
		stopped: make(chan struct{}), lost: make(chan struct{})}
	go l.renew()
	return l
}

// Lost is closed when the lease may have run out (no renewal succeeded
// within it) or the sandbox is gone.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Stop ends the renewals; the sandbox lives on until its lease's end, or
// its holder's next word (kill, or a lifetime of its own).
func (l *Lease) Stop() {
	l.stop()
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
		case <-l.ctx.Done():
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
		ctx, cancel := context.WithDeadline(l.ctx, until)
		sent := time.Now()
		err := l.s.SetTimeout(ctx, l.id, l.d)
		cancel()
		if err != nil && abxerr.From(err).Code == abxerr.NotFound {
			close(l.lost) // gone: no renewal will find it
			return
		}
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
// set with keep), whatever stopped the job: the lease ends it anyway. A
// variable only so that a test binary may hold abx to a shorter one than
// a user gets, and not wait half a minute to see it hold.
var EndBound = 30 * time.Second

// Ending is how a throwaway sandbox ended.
type Ending struct {
	// Kept is true when it was left running (keep), false when killed.
	Kept bool
	// Err is the kill's or the keep's error; a sandbox that was gone
	// already is no error of the kill's, which says so in Gone.
	Err error
	// Gone is true when the kill found the sandbox ended already: killed
	// from elsewhere, or its lifetime (the lease) passed.
	Gone bool
}

// throwaway is the sandbox of a throwaway job (Run): req is made with the
// lease as its lifetime and held (Hold) while work runs, then killed
// within EndBound, or with keep > 0 given that lifetime instead, whatever
// work did. (A lease shorter than a new sandbox's shortest lifetime is
// made with that one, then renewed as asked.) work gets the sandbox and a
// context that ends, with an error of ErrLeaseLost as its cause, when the
// lease is lost: the sandbox may be gone, and the job should stop. A
// sandbox that could not be made returns create's error, and no Ending.
func (s *Service) throwaway(ctx context.Context, req provider.CreateRequest, lease, keep time.Duration,
	work func(ctx context.Context, sb *provider.Sandbox) error) (*Ending, error) {
	start := time.Now()
	req.Timeout = max(lease, MinCreateLifetime)
	sb, err := s.Create(ctx, req)
	if err != nil {
		return nil, err
	}
	err = s.hold(ctx, sb, lease, start, work)
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), EndBound)
	defer cancel()
	if keep > 0 {
		return &Ending{Kept: true, Err: s.SetTimeout(ectx, sb.SandboxID, keep)}, err
	}
	kerr := s.Kill(ectx, sb.SandboxID)
	if kerr != nil && abxerr.From(kerr).Code == abxerr.NotFound {
		return &Ending{Gone: true}, err // what the kill was for, by other hands
	}
	return &Ending{Err: kerr}, err
}

// hold runs work while the lease of sb is renewed, and stops the renewals
// however work ends (a panic too: nothing renews a sandbox nobody holds).
func (s *Service) hold(ctx context.Context, sb *provider.Sandbox, lease time.Duration, start time.Time,
	work func(ctx context.Context, sb *provider.Sandbox) error) error {
	l := s.Hold(sb.SandboxID, lease, start)
	defer l.Stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-l.Lost():
			cancel(leaseLost(sb.SandboxID, lease))
		case <-ctx.Done():
		}
	}()
	return work(ctx, sb)
}

// ErrLeaseLost is the cause under the error a throwaway job's context
// ends with when its lease was lost (errors.Is tells it).
var ErrLeaseLost = errors.New("lease lost")

// leaseLost is that error, as abx reports it: a network failure (E5001).
func leaseLost(id string, lease time.Duration) error {
	e := abxerr.New(abxerr.Network, "the sandbox's lease could not be renewed for %s: sandbox %s may be gone", lease, id).
		WithHint("check the network and 'abx info %s'", id)
	e.Cause = ErrLeaseLost
	return e
}
