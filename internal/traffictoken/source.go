package traffictoken

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Refresh asks the manager for a new token of the sandbox.
type Refresh func(ctx context.Context) (Token, error)

// Options are a Source's clock and randomness; the zero value uses the
// real ones.
type Options struct {
	Now  func() time.Time
	Rand func() float64 // in [0, 1): the jitter of the renewal time
}

// Source hands out one sandbox's traffic token, renewing it as needed.
type Source struct {
	id      string
	refresh Refresh
	opts    Options

	mu      sync.Mutex
	tok     Token
	renewAt time.Time     // when to renew tok; set with tok
	margin  time.Duration // tok is not sent closer than this to its expiry
	retryAt time.Time     // no refresh before this, after one failed
	backoff time.Duration
	lastErr error   // why the last refresh failed
	flight  *flight // the refresh under way, if any
}

type flight struct{ done chan struct{} }

// Backoff bounds: the first retry after a failed refresh waits a second
// (or the server's Retry-After, if longer), each next one twice as long,
// up to 30 s.
const (
	firstBackoff = time.Second
	maxBackoff   = 30 * time.Second
)

// refreshBound bounds a refresh that runs for no request in particular:
// the one started ahead of expiry keeps going when the request that
// started it ends.
const refreshBound = time.Minute

// New returns the source of sandbox id's tokens, starting with tok (the
// zero Token if none is known: the first Get then refreshes).
func New(id string, tok Token, refresh Refresh, opts Options) *Source {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	s := &Source{id: id, refresh: refresh, opts: opts}
	s.mu.Lock()
	s.setLocked(tok, opts.Now())
	s.mu.Unlock()
	return s
}

// Replace takes a token an answer carried (a connect's): newer than the
// one held, so it is used from now on.
func (s *Source) Replace(tok Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setLocked(tok, s.opts.Now())
}

// Get returns the token to send with a request that starts now. A token
// inside its renewal window is returned at once while a refresh runs
// behind it; with no valid token, Get waits for the refresh. Past
// expiry, with the refresh failed, it is an error that says so: the
// request is not sent.
func (s *Source) Get(ctx context.Context) (string, error) {
	s.mu.Lock()
	now := s.opts.Now()
	if s.tok.Value != "" && (s.tok.Expires.IsZero() || now.Before(s.renewAt)) {
		defer s.mu.Unlock()
		return s.tok.Value, nil
	}
	if now.Before(s.retryAt) {
		defer s.mu.Unlock()
		return s.currentLocked(now)
	}
	f := s.flight
	if f == nil {
		f = &flight{done: make(chan struct{})}
		s.flight = f
		go s.run(context.WithoutCancel(ctx), f)
	}
	if s.valid(now) {
		defer s.mu.Unlock()
		return s.tok.Value, nil
	}
	s.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentLocked(s.opts.Now())
}

// run refreshes once for every Get that asked while it ran.
func (s *Source) run(ctx context.Context, f *flight) {
	ctx, cancel := context.WithTimeout(ctx, refreshBound)
	defer cancel()
	tok, err := s.refresh(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	defer close(f.done)
	s.flight = nil
	now := s.opts.Now()
	if err == nil && !tok.Expires.IsZero() && !now.Before(tok.Expires) {
		err = abxerr.New(abxerr.BadResponse, "the manager answered with a token that had expired already (at %s)",
			tok.Expires.UTC().Format(time.RFC3339))
	}
	if err != nil {
		delay := max(s.backoff, firstBackoff)
		var e *abxerr.Error
		if errors.As(err, &e) && e.RetryAfter > delay {
			delay = e.RetryAfter
		}
		s.retryAt = now.Add(delay)
		s.backoff = min(maxBackoff, max(s.backoff, firstBackoff)*2)
		s.lastErr = err
		return
	}
	s.setLocked(tok, now)
}

func (s *Source) setLocked(tok Token, now time.Time) {
	s.tok = tok
	s.renewAt = renewAt(tok, now, s.opts.Rand())
	s.margin = margin(tok, now)
	s.retryAt, s.backoff, s.lastErr = time.Time{}, 0, nil
}

// valid tells whether the token held may be sent now: it would not expire
// on its way to the gateway, whose clock may be a little ahead.
func (s *Source) valid(now time.Time) bool {
	return s.tok.Value != "" && (s.tok.Expires.IsZero() || now.Add(s.margin).Before(s.tok.Expires))
}

// currentLocked is the token held if it is still valid, or the error
// that says why there is none.
func (s *Source) currentLocked(now time.Time) (string, error) {
	if s.valid(now) {
		return s.tok.Value, nil
	}
	why := s.lastErr
	if why == nil {
		why = errors.New("no refresh has answered yet")
	}
	cause := abxerr.From(why)
	e := *cause
	e.Cause = why
	if s.tok.Value == "" {
		e.Message = "cannot get a traffic token for sandbox " + s.id + ", which its gateway asks of every request: " + cause.Message
	} else {
		e.Message = "the traffic token of sandbox " + s.id + " expired at " + s.tok.Expires.UTC().Format(time.RFC3339) +
			" and could not be renewed, so nothing was sent: " + cause.Message
	}
	return "", &e
}

// margin is how close to its expiry a token is no longer sent: a tenth
// of its validity, at most 5 s, for the time a request takes to reach the
// gateway and the gateway's clock to be ahead of this machine's.
func margin(tok Token, now time.Time) time.Duration {
	if tok.Expires.IsZero() {
		return 0
	}
	issued := tok.Issued
	if issued.IsZero() || issued.After(now) {
		issued = now
	}
	return min(5*time.Second, max(0, tok.Expires.Sub(issued))/10)
}

// renewAt is when to renew tok: ahead of its expiry by a fifth of its
// validity, at least a minute and at most five (as the manager's own
// client does), less up to a tenth of that at random so that many
// clients do not ask at once. A token valid for less than two minutes,
// which only a test cluster gives, is renewed halfway through its life,
// not on every request.
func renewAt(tok Token, now time.Time, r float64) time.Time {
	if tok.Expires.IsZero() {
		return time.Time{}
	}
	issued := tok.Issued
	if issued.IsZero() || issued.After(now) {
		issued = now
	}
	validity := max(0, tok.Expires.Sub(issued))
	ahead := min(5*time.Minute, max(time.Minute, validity/5))
	ahead = min(ahead, validity/2)
	ahead += time.Duration(float64(ahead) * 0.1 * r)
	return tok.Expires.Add(-ahead)
}
