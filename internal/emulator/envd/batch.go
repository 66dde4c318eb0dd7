package envd

import (
	"context"
	"net/http"
	"strings"
)

// A Connect server stream (a process's output, a directory's changes)
// goes out through net/http's response writer, whose buffers (2 KiB
// before chunking, 4 KiB under it) cut a message of a few KiB into two
// writes to the connection, and Connect flushes after every message: two
// system calls, and two wake-ups of the client, for each 4 KiB a terminal
// prints. batchWriter keeps a stream's bytes until Connect flushes them
// and hands them on in one write. While the stream's sender has more
// events queued (hold), a flush waits for them, batchMax at most: a burst
// goes out in few writes, and an event with none behind it at once, so
// that a keystroke's echo waits for nothing (docs/performance.md,
// "Terminals").
//
// One goroutine writes a stream (the handler's), so batchWriter has no
// lock.
type batchWriter struct {
	http.ResponseWriter
	buf  []byte
	held bool
	// err is the first failed write to the connection: every later write
	// returns it, so that the stream's sender learns its client is gone.
	err error
}

// batchMax is the most a held stream keeps before it writes anyway.
const batchMax = 64 << 10

func (b *batchWriter) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// FlushError writes what the stream has kept, in one write, and flushes
// it to the client; while held, only once batchMax has gathered.
func (b *batchWriter) FlushError() error {
	if b.held && len(b.buf) < batchMax {
		return b.err
	}
	b.write()
	if b.err == nil {
		b.err = http.NewResponseController(b.ResponseWriter).Flush()
	}
	return b.err
}

// Flush is FlushError for Connect, which flushes through http.Flusher.
func (b *batchWriter) Flush() { _ = b.FlushError() }

// write hands what the stream kept to net/http's writer.
func (b *batchWriter) write() {
	if b.err == nil && len(b.buf) > 0 {
		_, b.err = b.ResponseWriter.Write(b.buf)
	}
	b.buf = b.buf[:0]
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (b *batchWriter) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// batched serves a Connect server stream's request through a batchWriter,
// found by holder in the request's context; other requests as they are.
// What the stream kept goes out when the handler returns, or panics to
// abort the connection (the client gets what was sent before the cut).
func batched(h http.Handler, w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/connect+") {
		h.ServeHTTP(w, r)
		return
	}
	b := &batchWriter{ResponseWriter: w}
	defer b.write()
	h.ServeHTTP(b, r.WithContext(context.WithValue(r.Context(), batchKey{}, b)))
}

type batchKey struct{}

// holder returns how ctx's stream is told whether more events are queued
// behind the one about to be sent: while they are, its flushes wait. A
// request not served through batched has nothing to tell.
func holder(ctx context.Context) func(more bool) {
	if b, ok := ctx.Value(batchKey{}).(*batchWriter); ok {
		return func(more bool) { b.held = more }
	}
	return func(bool) {}
}
