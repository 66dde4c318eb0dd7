package output

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressThreshold is the size below which no progress is drawn: small
// transfers finish before a bar would help.
const progressThreshold = 8 << 20

// Progress draws a one-line transfer meter on stderr while bytes flow
// through it, on a terminal only; piped, it is a no-op. total 0 means
// unknown.
type Progress struct {
	s     *Streams
	label string
	total int64

	mu    sync.Mutex
	done  int64
	start time.Time
	last  time.Time
	drawn bool
}

// NewProgress starts a meter for a transfer of total bytes (0: unknown).
// The label is often a path in the sandbox, made safe like a note.
func (s *Streams) NewProgress(label string, total int64) *Progress {
	return &Progress{s: s, label: s.Safe(label), total: total, start: time.Now()}
}

// Writer counts what is written to w.
func (p *Progress) Writer(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		n, err := w.Write(b)
		p.add(n)
		return n, err
	})
}

// Reader counts what is read from r.
func (p *Progress) Reader(r io.Reader) io.Reader {
	return readerFunc(func(b []byte) (int, error) {
		n, err := r.Read(b)
		p.add(n)
		return n, err
	})
}

func (p *Progress) add(n int) {
	if !p.s.StderrTTY {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += int64(n)
	now := time.Now()
	if p.done < progressThreshold || now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	rate := float64(p.done) / now.Sub(p.start).Seconds() / (1 << 20)
	if p.total > 0 {
		_, _ = fmt.Fprintf(p.s.ErrOut, "\r%s %5.1f%% %s / %s  %.0f MiB/s ", p.label,
			100*float64(p.done)/float64(p.total), mib(p.done), mib(p.total), rate)
		return
	}
	_, _ = fmt.Fprintf(p.s.ErrOut, "\r%s %s  %.0f MiB/s ", p.label, mib(p.done), rate)
}

// Done clears the meter's line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		_, _ = fmt.Fprint(p.s.ErrOut, "\r\x1b[K")
		p.drawn = false
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }
