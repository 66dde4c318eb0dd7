package envd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
)

// A watch outlives the stream it began on. Proxies in front of sandboxes
// cut streams (the manager's Envoy at 400 s, a gateway after 600 s idle,
// a network that drops), while the sandbox and its envd run on; envd
// keeps nothing for a watch that went away, so Follow asks for a new one
// and says so: the changes between the two are not told
// (docs/files.md, "Watching").

// WatchSpec is a directory to follow.
type WatchSpec struct {
	Dir       string
	Recursive bool
	// Bound is how long, after a cut, Follow keeps trying to watch again:
	// 0 is the client's ReconnectWindow, the idle bound (--idle-timeout).
	Bound time.Duration
	// Started, when set, is called once the first watch is in place.
	Started func()
}

// Resume tells of a watch taken up again after its stream was cut.
type Resume struct {
	// Cause is how the stream ended.
	Cause error
	// Lasted is how long the stream that was cut had been watching.
	Lasted time.Duration
	// Since is when the old stream last said anything; At is when the new
	// one started. Changes in between may be missing.
	Since, At time.Time
	// Attempts is how many calls it took.
	Attempts int
}

// Gap is how long the watch was blind.
func (r Resume) Gap() time.Duration { return r.At.Sub(r.Since) }

// Reason says in words what cut the stream.
func (r Resume) Reason() string { return cutReason(r.Cause) }

// cutReason says in words what cut a stream, rather than Connect's
// "protocol error: incomplete envelope".
func cutReason(err error) string {
	switch {
	case errors.Is(err, ErrWatchEnded):
		return "the stream ended"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed in the middle of it"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "the connection was reset"
	}
	return strings.TrimPrefix(abxerr.From(err).Message, "protocol error: incomplete envelope: ")
}

// seconds words a duration as "12.3s".
func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// ErrWatchCut is in the chain of the error of a watch whose stream was cut
// and could not be taken up again.
var ErrWatchCut = errors.New("the watch stream was cut")

// rewatchWait is the first wait before watching again; each failed
// attempt doubles it, up to rewatchMaxWait.
var rewatchWait, rewatchMaxWait = 200 * time.Millisecond, 5 * time.Second

// Follow watches spec.Dir and hands each change to on, in order, until on
// fails (its error is returned as it is), ctx ends, or the watch fails for
// good. When the stream is cut, it watches again, with backoff, for up to
// spec.Bound, and tells resumed before the first change of the new stream.
// Failures of the first call (a missing directory, a file) are returned as
// they are: only a watch that was running is taken up again.
func (c *Client) Follow(ctx context.Context, spec WatchSpec, on func(FileEvent) error, resumed func(Resume) error) error {
	w, err := c.WatchDir(ctx, spec.Dir, spec.Recursive)
	if err != nil {
		return err
	}
	if spec.Started != nil {
		spec.Started()
	}
	bound := spec.Bound
	if bound <= 0 {
		bound = c.ReconnectWindow()
	}
	for {
		cause := pump(w, on)
		since, lasted := w.Heard(), time.Since(w.began)
		_ = w.Close()
		if !cut(ctx, cause) {
			var h *handed
			if errors.As(cause, &h) {
				return h.err
			}
			return cause
		}
		var n int
		if w, n, err = c.rewatch(ctx, spec, time.Now().Add(bound)); err != nil {
			return cutError(ctx, spec.Dir, lasted, cause, err, bound)
		}
		if err := resumed(Resume{Cause: AsError(cause), Lasted: lasted, Since: since, At: time.Now(), Attempts: n}); err != nil {
			_ = w.Close()
			return err
		}
	}
}

// pump hands w's changes to on until either fails.
func pump(w *Watch, on func(FileEvent) error) error {
	for {
		ev, err := w.Next()
		if err != nil {
			return err
		}
		if err := on(ev); err != nil {
			return &handed{err}
		}
	}
}

// handed is on's own error, which ends the watch as it is.
type handed struct{ err error }

func (h *handed) Error() string { return h.err.Error() }
func (h *handed) Unwrap() error { return h.err }

// cut reports whether err is the stream being cut while the watch could
// go on: not ctx's end, not on's error, not a refusal of envd (a
// directory gone, a token refused) or of the gateway (no sandbox running).
// It takes more for a cut than IsCut does for a process's stream: a watch
// holds nothing that a new one would lose, so a stall (the idle bound) is
// watched again too, and so is an attempt to watch again that failed in a
// way that may pass (a network down, a 503).
func cut(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil || errors.Is(err, ErrNotRunning) {
		return false
	}
	var h *handed
	if errors.As(err, &h) {
		return false
	}
	if errors.Is(err, ErrWatchEnded) {
		return true
	}
	// A message over the size cap is as definite as envd's refusals.
	if c := connect.CodeOf(err); definite(c) || c == connect.CodeResourceExhausted {
		return false
	}
	var e *abxerr.Error
	if errors.As(err, &e) {
		switch e.Code {
		case abxerr.Network, abxerr.Server, abxerr.BadResponse, abxerr.Timeout:
			return true
		}
		return false
	}
	return true
}

// rewatch calls WatchDir until a watch starts, waiting longer after each
// failed attempt, until by. A failure that is no cut (the directory is
// gone, the sandbox is) ends it at once.
func (c *Client) rewatch(ctx context.Context, spec WatchSpec, by time.Time) (*Watch, int, error) {
	wait := rewatchWait
	var last error // the last answer, rather than the bound cutting the last attempt short
	for n := 1; ; n++ {
		t := time.NewTimer(min(wait, max(0, time.Until(by))))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, n, ctx.Err()
		case <-t.C:
		}
		w, err := c.watchDir(ctx, spec.Dir, spec.Recursive, by)
		if err == nil {
			return w, n, nil
		}
		if !errors.Is(err, errLate) || last == nil {
			last = err
		}
		if !cut(ctx, err) || !time.Now().Before(by) {
			return nil, n, last
		}
		wait = min(2*wait, rewatchMaxWait)
	}
}

// cutError is the error of a watch of dir, cut by cause after lasted,
// that could not be taken up again: the last attempt's code (a refused
// token is still E4001, a sandbox gone E5001), with words that say the
// stream was cut.
func cutError(ctx context.Context, dir string, lasted time.Duration, cause, err error, bound time.Duration) error {
	if ctx.Err() != nil {
		return AsError(err)
	}
	e := abxerr.From(AsError(err))
	out := *e
	out.Cause = fmt.Errorf("%w: %w", ErrWatchCut, err)
	last := e.Message
	if cut(ctx, err) {
		last = fmt.Sprintf("no watch within %s: %s", seconds(bound), last)
	}
	out.Message = fmt.Sprintf("the watch of %s was cut after %s (%s), and abx could not watch again: %s",
		dir, seconds(lasted), cutReason(cause), last)
	if out.Hint == "" {
		out.Hint = "check that the sandbox still runs, then watch again"
	}
	return &out
}
