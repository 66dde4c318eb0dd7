package alicloudcontainer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The retry policy (docs/reliability.md, "Retries"): an idempotent call is
// tried again after a connection error or a 429, 502, 503 or 504, with
// capped exponential backoff and jitter, waiting what Retry-After asks, and
// never past the call's deadline. Creating a sandbox is not idempotent
// (callOnce): it is tried again only when its request never left this
// machine.
// retryFirstWait is a variable only so that tests which wait out backoffs
// can lower it before they start.
var retryFirstWait = 250 * time.Millisecond

const retryMaxWait = 5 * time.Second

// try is the outcome of one attempt of a call.
type try struct {
	reply
	err error
	// sent is set once the request's headers were written: from then on
	// the server may have acted on it.
	sent bool
	// retryAfter is what the server asked for, 0 when it did not.
	retryAfter time.Duration
}

// retryLater carries Retry-After to the backoff, which finds it by
// errors.As and waits that long instead of its own interval.
type retryLater struct {
	err   error
	after backoff.RetryAfterError
}

func (r *retryLater) Error() string   { return r.err.Error() }
func (r *retryLater) Unwrap() []error { return []error{r.err, &r.after} }

// withRetries runs attempt until it succeeds, fails in a way not worth
// another try, or the tries or the deadline of ctx run out. What the last
// try got is returned.
func (c *Client) withRetries(ctx context.Context, method, path string, idempotent bool, attempt func() try) (reply, error) {
	tries := 0
	opts := []backoff.RetryOption{
		backoff.WithBackOff(&backoff.ExponentialBackOff{InitialInterval: retryFirstWait, RandomizationFactor: 0.5,
			Multiplier: 2, MaxInterval: retryMaxWait}),
		backoff.WithMaxTries(uint(c.cfg.Retries) + 1),
		backoff.WithNotify(func(err error, wait time.Duration) {
			if c.log != nil {
				_, _ = fmt.Fprintf(c.log, "* %s %s: try %d of %d failed (%s); next in %s\n", method, path, tries,
					c.cfg.Retries+1, abxerr.From(err).Message, wait.Round(time.Millisecond))
			}
		}),
	}
	if deadline, ok := ctx.Deadline(); ok {
		// The backoff gives up, with the last error, rather than wait
		// past the deadline.
		opts = append(opts, backoff.WithMaxElapsedTime(time.Until(deadline)))
	}
	r, err := backoff.Retry(ctx, func() (reply, error) {
		tries++
		t := attempt()
		switch {
		case t.err == nil:
			return t.reply, nil
		case !worthRetrying(ctx, t, idempotent):
			return t.reply, backoff.Permanent(t.err)
		case t.retryAfter > 0:
			return t.reply, &retryLater{err: t.err, after: backoff.RetryAfterError{Duration: t.retryAfter}}
		}
		return t.reply, t.err
	}, opts...)
	var later *retryLater
	if errors.As(err, &later) {
		err = later.err
	}
	if e := (*abxerr.Error)(nil); tries > 1 && errors.As(err, &e) && e.Code != abxerr.Interrupted {
		e.Message += fmt.Sprintf(" (after %d tries)", tries)
	}
	return r, err
}

// worthRetrying says whether a failed try may be tried again.
func worthRetrying(ctx context.Context, t try, idempotent bool) bool {
	if ctx.Err() != nil {
		return false
	}
	if t.status == 0 { // no answer
		if abxerr.From(t.err).Code == abxerr.BadResponse {
			// abx refused what came back, a redirect to another
			// origin: the next try would be refused the same way.
			return false
		}
		var cert *tls.CertificateVerificationError
		if errors.As(t.err, &cert) {
			return false // it will not verify the next time either
		}
		return idempotent || !t.sent
	}
	switch t.status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// parseRetryAfter reads Retry-After: seconds, or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}
