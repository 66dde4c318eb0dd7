package output

import (
	"bytes"
	"io"
	"sync"
)

// redactWriter is SafeErrOut: each line has its secrets redacted and its
// controls escaped before it reaches stderr. It holds a line back until its
// end arrives, so that a secret is never split between two writes; the
// tracers and warnings write whole lines.
type redactWriter struct {
	s *Streams

	mu  sync.Mutex
	buf []byte
}

// maxPending bounds what a writer that never ends its line can make the
// trace hold back.
const maxPending = 64 << 10

func (w *redactWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	cut := bytes.LastIndexByte(w.buf, '\n') + 1
	if cut == 0 && len(w.buf) > maxPending {
		cut = len(w.buf)
	}
	if cut == 0 {
		return len(b), nil
	}
	text := escapeKeepNewlines(w.s.Secrets.Redact(string(w.buf[:cut])))
	w.buf = append(w.buf[:0], w.buf[cut:]...)
	if _, err := io.WriteString(w.s.ErrOut, text); err != nil {
		return 0, err
	}
	return len(b), nil
}
