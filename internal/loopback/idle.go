package loopback

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// IdleBody bounds each read of r's body: a client that sends no byte of
// it for idle has the read fail, and the connection end, however long the
// whole body takes while its bytes keep coming. Each read sets the
// deadline before it waits, and none is set once the body has ended, so
// that a long answer (a stream) after it is not cut. A server's
// ReadTimeout cannot do this: it bounds the whole request, and, left set
// while the handler runs, cancels the request's context when it passes.
func IdleBody(w http.ResponseWriter, r *http.Request, idle time.Duration) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	r.Body = &idleBody{ReadCloser: r.Body, rc: http.NewResponseController(w), idle: idle}
}

type idleBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	done bool
}

func (b *idleBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	_ = b.rc.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.done = true
		if errors.Is(err, io.EOF) {
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	}
	return n, err
}
