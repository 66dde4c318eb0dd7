package remoteproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

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
	if cause := context.Cause(ctx); errors.As(cause, &detached) {
		return nil, detached
	}
	if pid != 0 && t.PID == 0 && ctx.Err() != nil {
		kill, done := context.WithTimeout(context.WithoutCancel(ctx), signalWait)
		_ = c.Signal(kill, pid, true)
		done()
	}
	if err == nil {
		err = envd.ErrNoEnd
	}
	if pid == 0 {
		return nil, startError(err)
	}
	return nil, err
}

// typeKeys sends what is typed, until the detach keys or the end.
func (t *Terminal) typeKeys(ctx context.Context, cancel context.CancelCauseFunc, c *envd.Client, pid uint32) {
	buf, out := make([]byte, keyChunk), make([]byte, 0, keyChunk+len(t.Detach))
	d := detacher{seq: t.Detach}
	for {
		n, err := t.Keys.Read(buf)
		if n > 0 {
			keys, detached := d.feed(buf[:n], out)
			if len(keys) > 0 && !t.send(ctx, c, pid, keys) {
				return
			}
			if detached {
				cancel(&DetachedError{PID: pid})
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send types keys, trying again while the session lasts: a call that
// fails in a cut (the network, a proxy) is made again once it heals, and
// the keys after it wait, so none is lost or overtaken (one whose answer
// alone was lost arrives twice). It is false once the session is over
// (the stream says why: the process ended, or the sandbox went).
func (t *Terminal) send(ctx context.Context, c *envd.Client, pid uint32, keys []byte) bool {
	wait := backoffFirst
	for {
		if err := c.SendPTY(ctx, pid, keys); err == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
		wait = min(2*wait, backoffMax)
	}
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
