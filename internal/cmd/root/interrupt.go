package root

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// interruptContext is cancelled by Ctrl-C (SIGINT) or SIGTERM, but starts
// catching them only when something first waits on it (Done). Catching
// signals costs a thread and three goroutines, a fair share of a command
// that never waits, such as version, url or help; such a command ends as
// a signal's default action ends it, which is what it would do anyway.
// Unless SIGINT was ignored when abx started (catchIfIgnored).
type interruptContext struct {
	context.Context // the parent, until catching starts

	once    sync.Once
	catcher atomic.Pointer[catcher]
}

type catcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	sigs   chan os.Signal // the signals that cancel ctx
	pipes  chan os.Signal // SIGPIPE, once caught (streams); never read
}

func newInterruptContext(parent context.Context) *interruptContext {
	return &interruptContext{Context: parent}
}

func (c *interruptContext) start() *catcher {
	c.once.Do(func() {
		ctx, cancel := context.WithCancel(c.Context)
		k := &catcher{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 1)}
		signal.Notify(k.sigs, os.Interrupt, syscall.SIGTERM)
		go func() {
			// The first signal cancels; the channel stays caught until
			// stop, so that the next ones are the command's to act on
			// (a second Ctrl-C kills exec's command at once).
			select {
			case <-k.sigs:
				cancel()
			case <-ctx.Done():
			}
		}()
		c.catcher.Store(k)
	})
	return c.catcher.Load()
}

// streams catches what a stream command (cmdutil.Stream) must survive to
// stop its remote work: SIGHUP, a closed terminal or a dropped ssh, which
// cancels as Ctrl-C does; and SIGPIPE, so that a write to a stdout whose
// reader went away fails (EPIPE) rather than kill abx on the spot. A
// handler, not SIG_IGN: a program abx starts (emulator exec) gets the
// default action back at its exec, where an ignored SIGPIPE would be
// inherited.
func (c *interruptContext) streams() {
	k := c.start()
	signal.Notify(k.sigs, syscall.SIGHUP)
	if k.pipes == nil {
		k.pipes = make(chan os.Signal, 1) // a full channel drops the signal: nothing waits on it
		signal.Notify(k.pipes, syscall.SIGPIPE)
	}
}

// catchIfIgnored starts catching at once when abx was started with SIGINT
// ignored, as a script's background job is (`abx files watch ... &`): an
// ignored signal is dropped by the kernel, so a Ctrl-C sent before the
// command first waits would be lost for good, and a command that runs
// until Ctrl-C would run on. With the default action it would have ended
// abx; caught, it ends the command as Ctrl-C does.
func (c *interruptContext) catchIfIgnored(ignored func(os.Signal) bool) {
	if ignored(os.Interrupt) {
		c.start()
	}
}

// Done starts catching the signals.
func (c *interruptContext) Done() <-chan struct{} { return c.start().ctx.Done() }

// Err and Value come from the parent until catching starts: no signal can
// have been caught before.
func (c *interruptContext) Err() error {
	if k := c.catcher.Load(); k != nil {
		return k.ctx.Err()
	}
	return c.Context.Err()
}

// Value reaches the context that catches the signals once there is one,
// so that a context derived after that is cancelled with it directly.
func (c *interruptContext) Value(key any) any {
	if k := c.catcher.Load(); k != nil {
		return k.ctx.Value(key)
	}
	return c.Context.Value(key)
}

// stop stops catching the signals, if it started.
func (c *interruptContext) stop() {
	if k := c.catcher.Load(); k != nil {
		signal.Stop(k.sigs)
		if k.pipes != nil {
			signal.Stop(k.pipes)
		}
		k.cancel()
	}
}
