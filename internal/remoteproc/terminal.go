package remoteproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// A Terminal is an interactive session with a process on a PTY: keys go
// in as typed, the screen comes out, and the terminal's size follows the
// local one.
type Terminal struct {
	// Spec starts a new process (its Argv is run as is, not through bash);
	// or PID attaches to a running one.
	Spec Spec
	PID  uint32

	Size    envd.Size
	Keys    io.Reader // raw keys; nothing is read before the process runs
	Screen  io.Writer
	Resizes <-chan envd.Size
	// Detach is the key sequence that ends the session and leaves the
	// process running (DetachedError); empty: none.
	Detach []byte
	// Started is called once the process runs (to put the local terminal
	// in raw mode, which until then lets Ctrl-C interrupt abx).
	Started func(pid uint32)
	// Reconnected (when not nil) is told when the stream was cut and taken
	// up again (Follower): the screen may miss what came in between.
	Reconnected func(Reconnect) error
}

// DetachedError is a session the user left with the detach keys; the
// process runs on.
type DetachedError struct{ PID uint32 }

func (e *DetachedError) Error() string { return fmt.Sprintf("detached from process %d", e.PID) }

// keyChunk bounds one SendInput: a paste goes in pieces of this size, in
// order, each as soon as it is read; a key typed alone goes at once.
const keyChunk = 32 << 10

// Run runs the session until the process ends (its Exit), the user
// detaches (DetachedError), or ctx ends; then the process is killed only if
// abx started it and ctx ended (abx was told to stop: the shell must not
// outlive the terminal that ran it, as a hang-up ends it).
func (t *Terminal) Run(ctx context.Context, c *envd.Client) (*Exit, error) {
	if t.PID != 0 {
		if err := hasTerminal(ctx, c, t.PID); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		once sync.Once
		pid  uint32
	)
	started := func(p uint32) {
		once.Do(func() {
			pid = p
			if t.Started != nil {
				t.Started(p)
			}
			if t.PID != 0 {
				// The program redraws at a resize: the screen of an attached
				// session starts right, once its stream is there to show it.
				_ = c.Resize(ctx, p, t.Size)
			}
			go t.typeKeys(ctx, cancel, c, p)
			go t.follow(ctx, c, p)
		})
	}
	on := func(ev envd.Event) error {
		switch {
		case ev.Started != nil:
			started(*ev.Started)
		case ev.Stdout != nil:
			if _, err := t.Screen.Write(ev.Stdout); err != nil {
				// Nobody sees the screen any more (a closed stdout): the
				// session ends as at a hang-up, its process with it.
				cancel(err)
				return err
			}
		}
		return nil
	}
	// A cut stream is taken up again, as exec's is: a session outlives a
	// proxy's route timeout.
	f := Follower{Client: c, Event: on, Reconnected: t.Reconnected}
	var end *envd.End
	var err error
	if t.PID != 0 {
		// Keys go once the stream is open (its start event): what they
		// make the program print is on it.
		end, err = f.Follow(ctx, t.PID, func(ctx context.Context, on func(envd.Event) error) (*envd.End, error) {
			return c.Connect(ctx, t.PID, on)
		})
	} else {
		cmd := envd.Command{Cmd: t.Spec.Argv[0], Args: t.Spec.Argv[1:], Env: t.Spec.Env, Cwd: t.Spec.Cwd, PTY: &t.Size}
		end, err = f.Follow(ctx, 0, func(ctx context.Context, on func(envd.Event) error) (*envd.End, error) {
			return c.Start(ctx, cmd, on)
		})
	}
	if end != nil {
		return exitOf(end), nil
	}
	var detached *DetachedError
	cause := context.Cause(ctx)
	if errors.As(cause, &detached) {
		return nil, detached
	}
	if pid != 0 && t.PID == 0 && ctx.Err() != nil {
		kill, done := context.WithTimeout(context.WithoutCancel(ctx), signalWait)
		_ = c.Signal(kill, pid, true)
		done()
	}
	if errors.Is(cause, ErrKeysRefused) {
		return nil, cause
	}
	if err == nil {
		err = envd.ErrNoEnd
	}
	if pid == 0 {
		return nil, startError(err)
	}
	return nil, err
}

// typeKeys reads what is typed until the detach keys or the end, and
// hands the keys to a sender that types them in order. The reading never
// waits on a send: the detach keys end the session at once, whatever the
// sandbox does with the keys before them (those not yet sent are
// dropped).
func (t *Terminal) typeKeys(ctx context.Context, cancel context.CancelCauseFunc, c *envd.Client, pid uint32) {
	q := newKeyQueue()
	go t.sendKeys(ctx, cancel, c, pid, q)
	buf, out := make([]byte, keyChunk), make([]byte, 0, keyChunk+len(t.Detach))
	d := detacher{seq: t.Detach}
	for {
		n, err := t.Keys.Read(buf)
		if n > 0 {
			keys, detached := d.feed(buf[:n], out)
			if detached {
				cancel(&DetachedError{PID: pid})
				return
			}
			if len(keys) > 0 && !q.put(ctx, keys) {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// sendKeys types the keys of q, in order, while the session lasts. When
// envd refuses them for good, the keys after them are dropped, and the
// session ends with the refusal, unless the stream ends first within
// refusedWait (keys typed as the process ended: its end says more).
func (t *Terminal) sendKeys(ctx context.Context, cancel context.CancelCauseFunc, c *envd.Client, pid uint32, q *keyQueue) {
	buf := make([]byte, keyChunk)
	var err error
	for err == nil {
		keys, ok := q.take(ctx, buf)
		if !ok {
			return
		}
		err = t.send(ctx, c, pid, keys)
	}
	if ctx.Err() != nil {
		return
	}
	q.drop()
	wait := time.NewTimer(refusedWait)
	defer wait.Stop()
	select {
	case <-ctx.Done():
	case <-wait.C:
		cancel(keysRefused(pid, err))
	}
}

// send types keys, trying again while the session lasts a call that
// failed in a way that may pass (the network, a proxy): it is made again
// once that heals, and the keys after it wait, so none is lost or
// overtaken (one whose answer alone was lost arrives twice). It returns
// nil once the keys went, or the error that ends the sending: envd's own
// answer that refuses them, which no second call would change, or ctx's
// end.
func (t *Terminal) send(ctx context.Context, c *envd.Client, pid uint32, keys []byte) error {
	wait := backoffFirst
	for {
		err := c.SendPTY(ctx, pid, keys)
		if err == nil || !envd.MayPass(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, backoffMax)
	}
}

// ErrKeysRefused is in the chain of the error a session ends with when
// envd refused the keys typed into it for good.
var ErrKeysRefused = errors.New("the process refused the keys")

// refusedWait is how long a session waits for its stream's end once envd
// refused its keys for good. It is a variable only so that tests which
// wait it out can lower it before they start.
var refusedWait = 3 * time.Second

// keysRefused is the error of a session whose keys envd refused.
func keysRefused(pid uint32, err error) error {
	e := abxerr.From(envd.AsError(err))
	return &abxerr.Error{Code: e.Code, RequestID: e.RequestID, Status: e.Status,
		Cause:   fmt.Errorf("%w: %w", ErrKeysRefused, e),
		Message: fmt.Sprintf("process %d refused the keys typed: %s", pid, e.Message),
		Hint:    "the keys were not sent again: list the sandbox's processes to see whether it runs"}
}

// ErrNoTerminal is in the chain of the error of a session that would join
// a process without a terminal (one exec started, with pipes).
var ErrNoTerminal = errors.New("the process has no terminal")

// hasTerminal is nil unless envd says that process pid has no terminal to
// join: it is asked by typing nothing into it (an empty SendInput to its
// terminal), which changes nothing for a process that has one and which
// envd refuses for one that has not, on every version (docs/protocol.md,
// "PTY"). Any other failure is left to the stream, which says it in its
// own words.
func hasTerminal(ctx context.Context, c *envd.Client, pid uint32) error {
	err := envd.AsError(c.SendPTY(ctx, pid, []byte{}))
	if !errors.Is(err, envd.ErrNoTTY) {
		return nil
	}
	return &abxerr.Error{Code: abxerr.InvalidInput, Cause: fmt.Errorf("%w: %w", ErrNoTerminal, err),
		Message: fmt.Sprintf("process %d has no terminal: abx terminal joins only a process started on one", pid)}
}

// follow passes the local terminal's resizes on.
func (t *Terminal) follow(ctx context.Context, c *envd.Client, pid uint32) {
	for {
		select {
		case <-ctx.Done():
			return
		case s, ok := <-t.Resizes:
			if !ok {
				return
			}
			_ = c.Resize(ctx, pid, s)
		}
	}
}

// detacher finds the detach sequence in what is typed. A key that may
// begin it is held back until the next one says whether it does (as
// docker's Ctrl-P is).
type detacher struct {
	seq  []byte
	held int // how much of seq the keys so far end with
}

// feed returns, in out's storage, the keys to type, and whether the
// sequence is complete (the keys after it are dropped).
func (d *detacher) feed(keys, out []byte) ([]byte, bool) {
	if len(d.seq) == 0 {
		return keys, false
	}
	out = out[:0]
	for _, k := range keys {
		if k != d.seq[d.held] {
			// What was held was keys after all.
			out = append(out, d.seq[:d.held]...)
			d.held = 0
		}
		if k == d.seq[d.held] {
			d.held++
			if d.held == len(d.seq) {
				d.held = 0
				return out, true
			}
			continue
		}
		out = append(out, k)
	}
	return out, false
}
