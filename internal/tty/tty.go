// Package tty is the local terminal of an interactive session: its size,
// raw mode (and its restoration on every way out), and its resizes.
package tty

import (
	"context"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// Term is a terminal abx reads keys from.
type Term struct {
	f *os.File

	mu    sync.Mutex
	saved *term.State // the mode to restore; nil when not raw
}

// Open is f's terminal; ok is false when f is not one (a pipe, a file).
func Open(f *os.File) (t *Term, ok bool) {
	if f == nil || !term.IsTerminal(int(f.Fd())) {
		return nil, false
	}
	return &Term{f: f}, true
}

// Size is the terminal's width and height in cells; a terminal that does
// not say (a serial line) is taken as 80×24.
func (t *Term) Size() (cols, rows int) {
	c, r, err := term.GetSize(int(t.f.Fd()))
	if err != nil || c <= 0 || r <= 0 {
		return 80, 24
	}
	return c, r
}

// Raw puts the terminal in raw mode: every key reaches the remote program
// as typed (Ctrl-C, Ctrl-Z and Ctrl-D included), and nothing is echoed
// here. Restore undoes it; it is safe to call more than once.
func (t *Term) Raw() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.saved != nil {
		return nil
	}
	st, err := term.MakeRaw(int(t.f.Fd()))
	if err != nil {
		return err
	}
	t.saved = st
	return nil
}

// Restore gives the terminal back the mode it had before Raw, and
// discards the keys typed meanwhile that abx did not read: they were
// meant for the session, and the program that reads the terminal next
// (the shell abx ran from) would run them as its own.
func (t *Term) Restore() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.saved != nil {
		_ = term.Restore(int(t.f.Fd()), t.saved)
		_ = discardInput(int(t.f.Fd()))
		t.saved = nil
	}
}

// Resizes sends the terminal's size each time it changes, until ctx ends.
func (t *Term) Resizes(ctx context.Context) <-chan [2]int {
	out := make(chan [2]int, 1)
	go func() {
		defer close(out)
		changed, stop := notifyResize()
		defer stop()
		c, r := t.Size()
		// A poll as well as the signal: a platform without SIGWINCH, and a
		// resize between two signals, are still seen within pollEvery.
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-changed:
			case <-tick.C:
			}
			nc, nr := t.Size()
			if nc == c && nr == r {
				continue
			}
			c, r = nc, nr
			select {
			case out <- [2]int{c, r}:
			default:
				// The last one not yet taken is replaced: only the newest
				// size matters.
				select {
				case <-out:
				default:
				}
				out <- [2]int{c, r}
			}
		}
	}()
	return out
}

// pollEvery bounds how late a resize is seen when no signal says so.
const pollEvery = 250 * time.Millisecond
