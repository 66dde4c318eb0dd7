// Package interrupt reads what abx waits on (stdin, a pipe) so that Ctrl-C
// ends the wait at once.
package interrupt

import (
	"context"
	"io"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Reader reads r until ctx is done, then fails at once with ctx's
// error (Ctrl-C is E7001), even while a read of r is under way.
//
// A read of a terminal or a pipe that nobody writes to blocks, and nothing
// can cancel it: without this, abx would not notice Ctrl-C until the
// next line of stdin. Each read is made by a goroutine of its own, only
// when the consumer asks (no byte is taken from r that nobody reads);
// the goroutine of a read still blocked when ctx ends stays blocked until
// r answers or abx exits.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r, asks: make(chan int), got: make(chan chunk, 1)}
}

type chunk struct {
	b   []byte
	err error
}

type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	asks chan int   // how many bytes the consumer wants
	got  chan chunk // what one read of r gave
	// The fields below are the consumer's own.
	reading bool
	err     error // once set, every later Read returns it
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, c.fail(err)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if !c.reading {
		c.reading = true
		go c.loop()
	}
	select {
	case c.asks <- len(p):
	case <-c.ctx.Done():
		return 0, c.fail(c.ctx.Err())
	}
	select {
	case ch := <-c.got:
		n := copy(p, ch.b)
		if ch.err != nil {
			c.err = ch.err
		}
		return n, ch.err
	case <-c.ctx.Done():
		return 0, c.fail(c.ctx.Err())
	}
}

func (c *ctxReader) fail(err error) error {
	c.err = abxerr.From(err)
	return c.err
}

// loop reads r at the consumer's request, into a buffer of its own: the
// consumer's may be reused once it gave up on a read.
func (c *ctxReader) loop() {
	for {
		select {
		case n := <-c.asks:
			b := make([]byte, n)
			k, err := c.r.Read(b)
			c.got <- chunk{b: b[:k], err: err} // buffered: never waits
			if err != nil {
				return
			}
		case <-c.ctx.Done():
			return
		}
	}
}
