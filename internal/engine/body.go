package engine

import (
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// boundBody bounds each read of an admitted request's body: the
// connection's read deadline is pushed to bodyIdle from now before every
// read, so a body that keeps coming, however long, goes through, and one
// that stops is cut. At the body's end the deadline is lifted (the server
// then watches the connection for the client's going away).
//
// The function it returns is called when the handler is done with the
// request. A read after it (the transport's, still copying) no longer
// touches the connection, which may be reading the next request; and the
// connection of a cut body is closed, whatever was answered, rather than
// read on as if the rest of the body were the next request.
func (e *Engine) boundBody(w http.ResponseWriter, r *http.Request) (done func()) {
	if r.Body == nil || r.Body == http.NoBody {
		return func() {}
	}
	rc := http.NewResponseController(w)
	b := &idleBody{ReadCloser: r.Body, idle: e.bodyIdle, setDeadline: rc.SetReadDeadline, now: time.Now}
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
	done        atomic.Bool
	cut         atomic.Bool // a read failed before the body's end
}

func (b *idleBody) Read(p []byte) (int, error) {
	if !b.done.Load() {
		_ = b.setDeadline(b.now().Add(b.idle)) // not every writer can; then the server's own bounds hold
	}
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil || b.done.Load():
	case err == io.EOF:
		_ = b.setDeadline(time.Time{})
	default:
		b.cut.Store(true)
	}
	return n, err
}
