package remoteproc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Stream opens one stream of a process's events and follows it, handing
// each event to on, as envd.Client's Start and Connect do, bound
// to their other arguments.
type Stream func(ctx context.Context, on func(envd.Event) error) (*envd.End, error)

// Reconnect is one reconnection of a followed process's stream.
type Reconnect struct {
	PID uint32
	// CutAfter is how long the stream that was cut had lasted: the same
	// figure cut after cut points at a proxy's route timeout.
	CutAfter time.Duration
	// Gap is the time from the cut to the new stream: output the process
	// wrote then is lost, as envd keeps none for a stream to come.
	Gap time.Duration
	// Attempts is how many times abx asked envd to reattach.
	Attempts int
	// Reason says in words what cut the stream.
	Reason string
}

// ErrCut is in the cause chain of every error Follow returns because a
// stream was cut and could not be taken up again (errors.Is): the process
// may run on, and a command says how to look at it (abx ps ID).
var ErrCut = errors.New("the stream was cut")

// Follower follows a process's events by pid across cuts of the stream
// that carries them: when it breaks while the process may still run (a
// proxy's route or stream timeout, a network that drops it: envd.IsCut),
// it asks envd for the process again (Connect by pid) and goes on. envd
// keeps no output for a stream to come, so output written in the gap is
// lost; the exit status is still the process's own, from its end event.
//
// Its contract:
//
//   - Event gets the events in order, as envd.Client.Start's on does: the
//     first stream's start event (a reattached stream's own start event is
//     not passed on, so that a caller acts on the start once), the output
//     of every stream (stdout, stderr, a PTY's screen as Stdout), and the
//     end. An error from it stops following and is returned as it is.
//   - Reconnected (when not nil) is told of each reconnection once the new
//     stream is open, before any event of it; an error from it stops
//     following and is returned as it is.
//   - After a cut abx tries at once, then with a backoff (1/4 s doubling to
//     5 s), for Within (0: the client's ReconnectWindow, --idle-timeout).
//     The window starts again once a reattached stream has carried output
//     or lasted a while (steady): a proxy that cuts every 400 s is followed
//     for ever, one that cuts every attempt at once is not.
//   - ctx bounds everything, the waits between attempts included: its end
//     (Ctrl-C, a --timeout deadline) returns the error the stream or
//     Connect returned, or ctx's own, as without a cut.
//
// Follow returns the process's end, or an error:
//
//   - from the first stream before it named the pid, or a failure that is
//     not a cut (an error envd sent, the idle bound, the caller's own): as
//     the stream returned it;
//   - when the process ended during a cut (Connect does not know the pid
//     any more, or the process list no longer has it), or left the process
//     list while a reattached stream got no end for it (looked at every
//     5 s): abxerr.StatusUnknown, for abx never makes a status up;
//   - when the stream cannot be taken up again (the sandbox paused or gone:
//     the gateway's 502, envd.ErrNotRunning; a refused token; no answer
//     within the window): the failure's own code, with a message that says
//     the stream was cut, when, and why abx could not reattach.
//
// Every error of a cut holds ErrCut, and the last failure, in its chain.
type Follower struct {
	Client      *envd.Client
	Within      time.Duration
	Event       func(envd.Event) error
	Reconnected func(Reconnect) error
}

// Reconnection backoff: the first attempt at once, then from backoffFirst
// doubling to backoffMax.
const (
	backoffFirst = 250 * time.Millisecond
	backoffMax   = 5 * time.Second
	// steady is how long a reattached stream lasts, without output, before
	// a cut of it starts a new window rather than going on with the last.
	steady = 10 * time.Second
	// listWait bounds a look at the process list.
	listWait = 10 * time.Second
	// goneLook is how often the process list is looked at while a
	// reattached stream waits for the end (watchGone).
	goneLook = 5 * time.Second
)

// Follow follows pid (0: the pid the first stream's start event names)
// from the stream first opens, across cuts, to the process's end.
func (f Follower) Follow(ctx context.Context, pid uint32, first Stream) (*envd.End, error) {
	within := f.Within
	if within <= 0 {
		within = f.Client.ReconnectWindow()
	}
	fl := &following{f: f, pid: pid, opened: time.Now()}
	end, err := first(ctx, fl.event)
	var since time.Time // the cut the current window started at
	for {
		if end != nil {
			return end, nil
		}
		if err == nil {
			err = envd.ErrNoEnd
		}
		if ctx.Err() != nil || errors.Is(err, ErrCut) || !envd.IsCut(err) {
			return nil, err
		}
		c := cut{at: time.Now(), lasted: time.Since(fl.opened), reason: envd.CutReason(err), err: err}
		if fl.pid == 0 {
			return nil, &abxerr.Error{Code: abxerr.Network, Cause: fmt.Errorf("%w: %w", ErrCut, err),
				Message: fmt.Sprintf("the stream was cut after %s, before envd named the process (%s)", seconds(c.lasted), c.reason),
				Hint:    "the command may have started: list the sandbox's processes"}
		}
		if since.IsZero() || fl.carried || c.lasted >= steady {
			since = c.at
		}
		end, err = fl.reattach(ctx, c, since.Add(within))
	}
}

// following is the state of one Follow.
type following struct {
	f       Follower
	pid     uint32
	started bool      // the start event went to Event
	opened  time.Time // when the current stream began
	carried bool      // the current stream carried output
	// joined is called at the first event of a reattached stream.
	joined func() error
}

func (fl *following) event(ev envd.Event) error {
	if fl.joined != nil {
		j := fl.joined
		fl.joined = nil
		if err := j(); err != nil {
			return err
		}
	}
	switch {
	case ev.Started != nil:
		if fl.started {
			return nil
		}
		fl.started = true
		if fl.pid == 0 {
			fl.pid = *ev.Started
		}
	case ev.End == nil:
		fl.carried = true
	}
	return fl.f.Event(ev)
}

// cut is a stream that broke.
type cut struct {
	at     time.Time
	lasted time.Duration
	reason string
	err    error
}

// reattach asks envd for the process until a new stream opens, then
// follows that stream; it returns that stream's outcome, or the error that
// ends following: the process ended (unknown how), the stream cannot be
// taken up again, or ctx ended.
func (fl *following) reattach(ctx context.Context, c cut, deadline time.Time) (*envd.End, error) {
	wait := time.Duration(0)
	for attempts := 1; ; attempts++ {
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, c.err
			case <-t.C:
			}
		}
		joined := false
		fl.joined = func() error {
			joined = true
			fl.opened, fl.carried = time.Now(), false
			if fl.f.Reconnected == nil {
				return nil
			}
			return fl.f.Reconnected(Reconnect{PID: fl.pid, CutAfter: c.lasted, Gap: time.Since(c.at),
				Attempts: attempts, Reason: c.reason})
		}
		cctx, cancel := context.WithCancelCause(ctx)
		watched := make(chan struct{})
		go fl.watchGone(cctx, cancel, watched)
		end, err := fl.f.Client.Connect(cctx, fl.pid, fl.event)
		cancel(nil)
		<-watched
		fl.joined = nil
		if end == nil && errors.Is(context.Cause(cctx), errEndUnsent) && ctx.Err() == nil {
			return nil, c.unsent(fl.pid, err)
		}
		if joined || end != nil {
			return end, err
		}
		switch {
		case ctx.Err() != nil:
			return nil, err
		case ended(err):
			return nil, c.ended(fl.pid, err)
		case refused(err):
			return nil, c.lost(fl.pid, err, "")
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, fl.giveUp(ctx, c, err, deadline.Sub(c.at))
		}
		wait = min(max(2*wait, backoffFirst), backoffMax, left)
	}
}

// errEndUnsent: the process left envd's list while a reattached stream
// waited for its end.
var errEndUnsent = errors.New("the process ended without its end event")

// watchGone looks at the process list every goneLook while a reattached
// stream is open, and ends the stream when the process has left the list
// twice in a row: an envd that sends a reattached stream no end when the
// process ended just before (the emulator's can, and so may a real one)
// would otherwise hold abx for ever, its keepalives keeping the idle
// bound at bay.
func (fl *following) watchGone(ctx context.Context, cancel context.CancelCauseFunc, done chan<- struct{}) {
	defer close(done)
	missing := 0
	tick := time.NewTicker(goneLook)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		lctx, stop := context.WithTimeout(ctx, listWait)
		list, err := fl.f.Client.List(lctx)
		stop()
		switch {
		case err != nil:
			missing = 0
		case slices.ContainsFunc(list, func(p envd.Process) bool { return p.PID == fl.pid }):
			missing = 0
		default:
			missing++
		}
		if missing >= 2 {
			cancel(errEndUnsent)
			return
		}
	}
}

// ended reports whether a failed reattach says the process is gone: envd
// itself answered that it knows no process of that pid.
func ended(err error) bool {
	return envd.IsNotFound(err)
}

// refused reports whether a failed reattach is an answer that trying again
// will not change: the sandbox is paused or gone (the gateway's 502), or
// its token was refused.
func refused(err error) bool {
	return errors.Is(envd.AsError(err), envd.ErrNotRunning) || envd.IsDenied(err)
}

// giveUp is the end of a window without a stream: one look at the process
// list tells a process that ended from one abx cannot reach.
func (fl *following) giveUp(ctx context.Context, c cut, last error, within time.Duration) error {
	lctx, cancel := context.WithTimeout(ctx, listWait)
	defer cancel()
	list, err := fl.f.Client.List(lctx)
	if err == nil && !slices.ContainsFunc(list, func(p envd.Process) bool { return p.PID == fl.pid }) {
		return c.ended(fl.pid, last)
	}
	return c.lost(fl.pid, last, fmt.Sprintf("no stream within %s", seconds(within)))
}

// ended is the error of a process that ended during the cut.
func (c cut) ended(pid uint32, last error) error {
	return &abxerr.Error{Code: abxerr.StatusUnknown, Cause: fmt.Errorf("%w: %w", ErrCut, last),
		Message: fmt.Sprintf("the stream of process %d was cut after %s (%s), and the process ended before abx could reattach: how it ended is unknown",
			pid, seconds(c.lasted), c.reason),
		Hint: "abx makes no exit status up; check what the command left behind (its files, its logs)"}
}

// unsent is the error of a process that ended on a reattached stream
// without envd sending its end.
func (c cut) unsent(pid uint32, last error) error {
	return &abxerr.Error{Code: abxerr.StatusUnknown, Cause: fmt.Errorf("%w: %w: %w", ErrCut, errEndUnsent, last),
		Message: fmt.Sprintf("the stream of process %d was cut after %s (%s); abx reattached, but the process ended without envd sending its end: how it ended is unknown",
			pid, seconds(c.lasted), c.reason),
		Hint: "abx makes no exit status up; check what the command left behind (its files, its logs)"}
}

// lost is the error of a stream that could not be taken up again; why
// says how long abx tried, when it gave up for lack of time.
func (c cut) lost(pid uint32, last error, why string) error {
	e := envd.AsError(last)
	ae := abxerr.From(e)
	reason := ae.Message
	switch {
	case errors.Is(e, envd.ErrNotRunning):
		reason = "the sandbox is not running (paused or gone)"
	case ae.Code == abxerr.Unauthorized || ae.Code == abxerr.Forbidden:
		reason = "the sandbox refused abx's token: " + reason
	}
	if why != "" {
		reason = why + ": " + reason
	}
	return &abxerr.Error{Code: ae.Code, RequestID: ae.RequestID, Status: ae.Status,
		Cause:   fmt.Errorf("%w: %w", ErrCut, e),
		Message: fmt.Sprintf("the stream of process %d was cut after %s (%s), and abx could not reattach: %s", pid, seconds(c.lasted), c.reason, reason),
		Hint:    "the process may still be running: list the sandbox's processes"}
}

// seconds words a duration as "12.3s".
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}
