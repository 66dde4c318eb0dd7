package remoteproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Run starts spec in the foreground and follows it to its end: output to
// the sink as it arrives, abx's stdin to the process when interactive.
//
// Ctrl-C: the first one is ctx's cancellation (the root command cancels
// its context on SIGINT and SIGTERM) or a value on spec.Signals, whichever
// comes first. It sends SIGTERM to the wrapper, which stops the command's
// process group within Grace; abx waits for the end a little longer than
// that (StopWait), then sends SIGKILL and stops waiting. A second Ctrl-C
// does that at once.
//
// A sink that fails (its reader went away: a closed stdout) stops the
// command the same way, and what the command writes after that is
// dropped while it ends; Run then returns the sink's error.
//
// It returns how the process ended, and an error when abx did not see it
// end by itself: the deadline passed (Timeout), the user interrupted it
// (Interrupted, with the Exit when the process still reported its end),
// the sink failed, or abx failed.
func Run(ctx context.Context, c *envd.Client, spec Spec, sink Sink) (*Exit, error) {
	if err := ctx.Err(); err != nil {
		return nil, abxerr.From(err) // Ctrl-C came first: nothing is started
	}
	// The stream outlives the first Ctrl-C, which only asks the remote
	// process to stop; its end event still decides what abx reports.
	streamCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		streamCtx, cancel = context.WithTimeout(streamCtx, spec.Timeout)
		defer cancel()
	}
	it := &interrupter{ctx: ctx, c: c, stop: stop, aborts: make(chan struct{}, 1)}
	sink = &stopping{sink: sink, it: it}
	done := make(chan struct{})
	defer close(done)
	go it.watch(spec.Signals, done)

	// Input: envd's stdin pipe where envd can close it, else the relay,
	// through which end of input reaches the command on every envd.
	stdin := stdinOf(spec)
	var rl *relay
	if spec.Interactive && !c.CanCloseStdin() {
		var err error
		if rl, err = startRelay(ctx, c); err != nil {
			return nil, err
		}
		defer rl.stop(ctx)
		stdin = rl.redirect()
	}
	in := func(pid uint32) {
		var err error
		if rl != nil {
			err = rl.feed(streamCtx, spec.Stdin)
		} else {
			err = pump(streamCtx, c, pid, spec.Stdin)
		}
		if cause := undelivered(streamCtx, err); cause != nil {
			// The command must not take what it got for the whole of it.
			it.abort(cause)
		}
	}

	// Input goes by calls of its own (SendInput), apart from the output
	// stream: a cut of the stream and its reattaching neither lose nor
	// repeat what the pump sent, and the pump starts once, at the start.
	f := follower(c, sink, func(ev envd.Event) error {
		if ev.Started == nil {
			return forward(sink, ev)
		}
		it.started(*ev.Started)
		if spec.Interactive {
			go in(*ev.Started)
		}
		return sink.Started(*ev.Started)
	})
	end, err := f.Follow(streamCtx, 0, func(ctx context.Context, on func(envd.Event) error) (*envd.End, error) {
		return c.Start(ctx, command(spec, stdin, false), on)
	})
	interrupted := it.interrupted()
	if cause := it.aborted(); cause != nil {
		return nil, cause
	}
	if err != nil {
		// Connect can report the deadline a moment before the context's
		// own timer marks it: either way it is --timeout's.
		if spec.Timeout > 0 && (streamCtx.Err() == context.DeadlineExceeded ||
			abxerr.From(envd.AsError(err)).Code == abxerr.Timeout) {
			return nil, timedOut(spec)
		}
		if it.killed() {
			return nil, abxerr.New(abxerr.Interrupted, "interrupted: abx sent SIGKILL and stopped waiting")
		}
		if interrupted {
			return nil, abxerr.New(abxerr.Interrupted, "interrupted")
		}
		if errors.Is(err, ErrCut) {
			return nil, err
		}
		return nil, startError(err)
	}
	x := exitOf(end)
	if err := impossible(x); err != nil {
		return nil, err
	}
	if killedByDeadline(streamCtx, spec, x) {
		// envd killed it at the deadline and said so before the stream
		// ended: the same --timeout as when the deadline ends the stream.
		return nil, timedOut(spec)
	}
	if interrupted {
		return x, abxerr.New(abxerr.Interrupted, "interrupted: the command ended with %s", end.Status)
	}
	return x, nil
}

// ErrTimedOut is in the chain of the error Run returns when spec.Timeout
// passed (errors.Is): a caller whose own bound it was (abx run's, of
// which the command got what was left) says it in its words.
var ErrTimedOut = errors.New("the command's timeout passed")

func timedOut(spec Spec) error {
	return &abxerr.Error{Code: abxerr.Timeout, Cause: ErrTimedOut,
		Message: fmt.Sprintf("the command did not finish within %s and was killed", spec.Timeout)}
}

// stopping is Run's sink in front of the caller's: the first error of the
// caller's sink stops the command as a Ctrl-C does (interrupter.abort),
// rather than end the stream and leave the command running where nobody
// follows it; what comes after is dropped. Its calls all come from the
// stream's one goroutine.
type stopping struct {
	sink   Sink
	it     *interrupter
	failed bool
}

var _ ReconnectSink = (*stopping)(nil)

func (s *stopping) take(err error) error {
	if err != nil {
		s.failed = true
		s.it.abort(err)
	}
	return nil
}

func (s *stopping) Started(pid uint32) error {
	if s.failed {
		return nil
	}
	return s.take(s.sink.Started(pid))
}

func (s *stopping) Stdout(b []byte) error {
	if s.failed {
		return nil
	}
	return s.take(s.sink.Stdout(b))
}

func (s *stopping) Stderr(b []byte) error {
	if s.failed {
		return nil
	}
	return s.take(s.sink.Stderr(b))
}

func (s *stopping) Reconnected(r Reconnect) error {
	rs, ok := s.sink.(ReconnectSink)
	if !ok || s.failed {
		return nil
	}
	return s.take(rs.Reconnected(r))
}

// killedByDeadline tells envd's kill at --timeout's deadline from a
// command's own end: SIGKILL, once the deadline has passed (envd's
// deadline is counted from when the request arrived, so it is never
// earlier than abx's).
func killedByDeadline(ctx context.Context, spec Spec, x *Exit) bool {
	deadline, ok := ctx.Deadline()
	return spec.Timeout > 0 && ok && !time.Now().Before(deadline) &&
		x.Code == abxerr.SignalStatus(int(syscall.SIGKILL))
}

// StopWait is how long abx waits for a command's end after the first
// Ctrl-C before it kills the wrapper and stops waiting: the wrapper's grace
// and a moment for the end to arrive (on bash before 5.0 the grace may run
// to 3 s; the watcher then ends the group when the wrapper is killed).
const StopWait = Grace + time.Second

// signalWait bounds each signal sent on the user's behalf: the service may
// be the reason the command does not end.
const signalWait = 5 * time.Second

// undelivered is the error of an input that did not reach the command
// whole: abx could not read its own stdin, or the connection broke under a
// piece of it (which may or may not have arrived). Nil for the ends that
// leave nothing owed: all of it sent, the command's own end (ctx), and an
// answer of envd's that the receiving side is gone or closed its stdin (a
// command that stopped reading, as 'head -c 5' does).
func undelivered(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return nil
	}
	e := abxerr.From(envd.AsError(err))
	switch e.Code {
	case abxerr.InvalidInput:
		return e
	case abxerr.Network:
		return &abxerr.Error{Code: abxerr.Network, Cause: err,
			Message: "abx's stdin could not be sent to the command whole: " + e.Message,
			Hint: "abx stopped the command rather than let it take part of its input for all of it; " +
				"a command that reads none of its input for --idle-timeout looks like a stalled connection: raise it for such a command (0 turns the bound off)"}
	}
	return nil
}

// pump streams abx's stdin to the process and closes the process's stdin
// at the end (envd 0.5.2 and later; older ones have the relay).
func pump(ctx context.Context, c *envd.Client, pid uint32, in io.Reader) error {
	if _, err := Feed(ctx, c, pid, in); err != nil {
		return err
	}
	return c.CloseStdin(ctx, pid)
}

// interrupter turns Ctrl-C into signals to the remote process: SIGTERM
// first, which the wrapper passes on to the command's process group; when
// the end has not come within StopWait, or at a second Ctrl-C, SIGKILL,
// and abx stops waiting (children the command left behind can hold its
// output open for ever). A Ctrl-C that comes before the process started is
// sent when it starts.
type interrupter struct {
	ctx  context.Context
	c    *envd.Client
	stop context.CancelFunc // stops following the stream

	mu      sync.Mutex
	pid     uint32
	presses int
	kills   bool  // SIGKILL went out (or would have, had the process started)
	cause   error // why abx stopped the command itself (abort)

	aborts chan struct{} // abort's press, for watch to act on
}

// abort stops the command as a Ctrl-C does, SIGKILL after StopWait
// included, for a reason of abx's own, which Run then reports.
func (it *interrupter) abort(err error) {
	it.mu.Lock()
	if it.cause == nil {
		it.cause = err
	}
	it.mu.Unlock()
	select {
	case it.aborts <- struct{}{}:
	default: // one is waiting already
	}
}

func (it *interrupter) aborted() error {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.cause
}

func (it *interrupter) watch(sigs <-chan os.Signal, done <-chan struct{}) {
	first := it.ctx.Done()
	own := sigs == nil
	var giveUp <-chan time.Time
	var mine chan os.Signal
	defer func() {
		if mine != nil {
			signal.Stop(mine)
		}
	}()
	press := func() {
		if it.press() == 1 {
			giveUp = time.After(StopWait)
		}
	}
	for {
		select {
		case <-done:
			return
		case <-first:
			first = nil
			if own {
				// The root's handler took the first SIGINT; the next ones
				// are Ctrl-Cs of their own.
				mine = make(chan os.Signal, 2)
				signal.Notify(mine, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
				sigs = mine
			}
			if !it.interrupted() {
				press()
			}
		case <-sigs:
			press()
		case <-it.aborts:
			press()
		case <-giveUp:
			it.kill()
			return
		}
	}
}

// press counts a Ctrl-C and acts on it; it returns how many there were.
func (it *interrupter) press() int {
	it.mu.Lock()
	it.presses++
	n, pid := it.presses, it.pid
	it.mu.Unlock()
	switch {
	case n > 1:
		it.kill()
	case pid != 0:
		go it.signal(pid, false)
	}
	return n
}

// kill sends SIGKILL to the wrapper, whose watcher then kills the group,
// and stops waiting. The signal is given a moment to leave before abx
// exits, not longer.
func (it *interrupter) kill() {
	it.mu.Lock()
	pid := it.pid
	it.kills = true
	it.mu.Unlock()
	if pid != 0 {
		sent := make(chan struct{})
		go func() { it.signal(pid, true); close(sent) }()
		select {
		case <-sent:
		case <-time.After(time.Second):
		}
	}
	it.stop()
}

func (it *interrupter) started(pid uint32) {
	it.mu.Lock()
	it.pid = pid
	n := it.presses
	it.mu.Unlock()
	if n > 0 {
		go it.signal(pid, n > 1)
	}
}

func (it *interrupter) killed() bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.kills && it.pid != 0
}

func (it *interrupter) interrupted() bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.presses > 0
}

// signal sends SIGTERM (or SIGKILL) to the remote process, even though
// abx's own context is being cancelled by the interrupt.
func (it *interrupter) signal(pid uint32, kill bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(it.ctx), signalWait)
	defer cancel()
	_ = it.c.Signal(ctx, pid, kill)
}
