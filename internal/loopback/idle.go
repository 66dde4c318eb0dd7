package loopback

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// IdleBody bounds each read of r's body: the connection's read deadline is
// pushed to idle from now before every read, so a body that keeps coming,
// however long it takes, goes through, and one that stops is cut. At the
// body's end the deadline is lifted, so that a long answer (a stream)
// after it is not cut. A server's ReadTimeout cannot do this: it bounds
// the whole request, and, left set while the handler runs, cancels the
// request's context when it passes.
//
// The deadline is set at once, before any read: a handler that answers
// without reading the body (a 404, a refusal of its own) leaves it to
// Go's server, which reads what is left of it (up to 256 KiB) before it
// answers, through a reader of its own. That read is then bounded too: a
// body that stops coming gets its answer once idle has passed, and its
// connection closed. While the body is unfinished nothing else reads the
// connection (the server's background read starts at the body's end), so
// a deadline that passes meanwhile cuts no answer.
//
// The function it returns is called when the handler is done with the
// request. A read after it (a transport still copying) no longer touches
// the connection, which may be reading the next request; and the
// connection of a cut body is closed, whatever was answered, rather than
// read on as if the rest of the body were the next request.
func IdleBody(w http.ResponseWriter, r *http.Request, idle time.Duration) (done func()) {
	if r.Body == nil || r.Body == http.NoBody {
		return func() {}
	}
	rc := http.NewResponseController(w)
	b := &idleBody{ReadCloser: r.Body, idle: idle, setDeadline: rc.SetReadDeadline, now: time.Now}
	_ = b.setDeadline(b.now().Add(idle))
	r.Body = b
	return func() {
		b.done.Store(true)
		if b.cut.Load() {
			_ = rc.Flush()
			if conn, _, err := rc.Hijack(); err == nil {
				_ = conn.Close()
			}
		}
	}
}

type idleBody struct {
	io.ReadCloser
	idle        time.Duration
	setDeadline func(time.Time) error
	now         func() time.Time
	done        atomic.Bool // the handler is done: the connection is not the body's any more
	ended       atomic.Bool // the body was read to its end
	cut         atomic.Bool // a read failed before the body's end
}

func (b *idleBody) Read(p []byte) (int, error) {
	if !b.done.Load() && !b.ended.Load() {
		_ = b.setDeadline(b.now().Add(b.idle)) // not every writer can; then the server's own bounds hold
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil || b.done.Load() || b.ended.Load():
	case errors.Is(err, io.EOF):
		b.ended.Store(true)
		_ = b.setDeadline(time.Time{})
	default:
		b.cut.Store(true)
	}
	return n, err
}
