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
type interruptContext struct {
	context.Context // the parent, until catching starts

	once    sync.Once
	catcher atomic.Pointer[catcher]
}

type catcher struct {
	ctx  context.Context
	stop context.CancelFunc
}

func newInterruptContext(parent context.Context) *interruptContext {
	return &interruptContext{Context: parent}
}

func (c *interruptContext) start() *catcher {
	c.once.Do(func() {
		ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
		c.catcher.Store(&catcher{ctx, stop})
	})
	return c.catcher.Load()
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
		k.stop()
	}
}
