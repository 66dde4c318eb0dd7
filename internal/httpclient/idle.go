package httpclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// WithIdle returns a copy of hc whose requests fail when they wait on the
// network for d without a byte moving: the answer (keepalives included)
// stopped coming, or the server stopped taking the request's body. Time
// spent on this side does not count: a reader that pauses (a pager, a
// slow disk) or a body that waits for its own input (stdin) stalls
// nothing. Streams have no deadline of their own, as a command may run
// for hours; this is what bounds one that stalled. d <= 0 returns hc.
func WithIdle(hc *http.Client, d time.Duration) *http.Client {
	if d <= 0 {
		return hc
	}
	c := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &idleTransport{next: next, d: d}
	return &c
}

// IdleError is how a stalled exchange fails.
func IdleError(d time.Duration) *abxerr.Error {
	return abxerr.New(abxerr.Network, "the sandbox sent nothing for %s (not even a keepalive): the stream stalled and abx closed it", d).
		WithHint("check the network; raise --idle-timeout if the sandbox is that slow to answer (0 turns the bound off)")
}

type idleTransport struct {
	next http.RoundTripper
	d    time.Duration
}

var errIdle = errors.New("idle")

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watchdog{d: t.d, stall: func() { cancel(errIdle) }}
	r := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		w.body = &sentBody{ReadCloser: req.Body, w: w}
		r.Body = w.body
	}
	if r.Body == nil || r.Body == http.NoBody {
		w.answerDue()
	}
	resp, err := t.next.RoundTrip(r)
	w.answered(err == nil)
	if err != nil {
		stalled := w.stalled()
		w.stop()
		cancel(nil)
		if stalled {
			return nil, IdleError(t.d)
		}
		return nil, err
	}
	resp.Body = &receivedBody{ReadCloser: resp.Body, w: w, close: func() { w.stop(); cancel(nil) }}
	return resp, nil
}

// watchdog stalls the exchange when it has been waiting on the network
// for d with no byte moving. waiting counts the ways it waits at once: for
// the answer, and for the server to take the body. Progress only records
// the time: the hot path of a stream touches no timer, and the one timer,
// when it goes off, checks how long the wait has really lasted.
type watchdog struct {
	d     time.Duration
	stall func()

	mu      sync.Mutex
	waiting int
	since   time.Time // the start of the current wait without progress
	timer   *time.Timer
	running bool // the timer is set
	fired   bool
	stopped bool
	// answer: the wait for the headers began; headed: it is over.
	answer, headed bool
	// body is the request's body, whose pending wait an early answer ends.
	body *sentBody
}

// answerDue starts the wait for the answer's headers: once the request
// is all sent, since until then the server may rightly say nothing.
func (w *watchdog) answerDue() {
	w.mu.Lock()
	due := !w.answer && !w.headed
	w.answer = due || w.answer
	w.mu.Unlock()
	if due {
		w.wait()
	}
}

// answered ends the wait for the headers, if it had begun, and the wait
// for the server to take more of the body: a server that answered before
// reading all of it is not waited on for the rest.
func (w *watchdog) answered(ok bool) {
	w.mu.Lock()
	was := w.answer && !w.headed
	w.headed = true
	body := w.body
	w.mu.Unlock()
	if was {
		w.done(ok)
	}
	if body != nil {
		body.answer()
	}
}

// wait starts a wait on the network.
func (w *watchdog) wait() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting++
	if w.waiting == 1 {
		w.since = time.Now()
	}
	if w.running || w.stopped {
		return
	}
	w.running = true
	if w.timer == nil {
		w.timer = time.AfterFunc(w.d, w.fire)
	} else {
		w.timer.Reset(w.d)
	}
}

// done ends a wait; moved says bytes came or went, which restarts the
// bound of any other wait still on.
func (w *watchdog) done(moved bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiting--
	if moved {
		w.since = time.Now()
	}
}

func (w *watchdog) fire() {
	w.mu.Lock()
	if w.stopped || w.waiting == 0 {
		w.running = false
		w.mu.Unlock()
		return
	}
	if left := w.d - time.Since(w.since); left > 0 {
		w.timer.Reset(left)
		w.mu.Unlock()
		return
	}
	w.fired = true
	w.mu.Unlock()
	w.stall()
}

func (w *watchdog) stalled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// receivedBody waits on the network inside Read only: between reads, the
// caller is busy with what it got.
type receivedBody struct {
	io.ReadCloser
	w     *watchdog
	close func()
	once  sync.Once
}

func (b *receivedBody) Read(p []byte) (int, error) {
	b.w.wait()
	n, err := b.ReadCloser.Read(p)
	b.w.done(n > 0)
	if err != nil && !errors.Is(err, io.EOF) && b.w.stalled() {
		err = IdleError(b.w.d)
	}
	return n, err
}

func (b *receivedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.close)
	return err
}

// sentBody waits on the network between reads: the transport asks for
// more once the connection took what it had. Inside Read it waits on its
// own source (a file, stdin), which is not the network's fault.
type sentBody struct {
	io.ReadCloser
	w        *watchdog
	mu       sync.Mutex
	waiting  bool
	answered bool // the answer came: the server is no longer waited on
}

func (b *sentBody) Read(p []byte) (int, error) {
	b.settle()
	n, err := b.ReadCloser.Read(p)
	if err == nil && n > 0 {
		b.mu.Lock()
		if !b.answered {
			b.waiting = true
			b.w.wait()
		}
		b.mu.Unlock()
	}
	if err != nil {
		b.w.answerDue()
	}
	return n, err
}

// answer settles the body's wait for good: the server has answered.
func (b *sentBody) answer() {
	b.mu.Lock()
	b.answered = true
	b.mu.Unlock()
	b.settle()
}

// settle ends the wait for the server to take what was read.
func (b *sentBody) settle() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiting {
		b.waiting = false
		b.w.done(true)
	}
}

func (b *sentBody) Close() error {
	b.settle()
	b.w.answerDue()
	return b.ReadCloser.Close()
}
