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

// WithIdle returns a copy of hc whose requests fail when no byte moves
// either way for d: the request body was not read from (the server stopped
// taking it) and no answer byte came (the server stopped sending, keepalives
// included). Streams have no deadline of their own, as a command may run
// for hours; this is what bounds a stream that stalled. d <= 0 returns hc.
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

func (t *idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := &watchdog{d: t.d, cancel: cancel}
	w.start()
	r := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody {
		r.Body = &idleBody{ReadCloser: req.Body, w: w}
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		w.stop()
		cancel(nil)
		if w.fired() {
			return nil, IdleError(t.d)
		}
		return nil, err
	}
	w.kick()
	resp.Body = &idleBody{ReadCloser: resp.Body, w: w, done: func() { w.stop(); cancel(nil) }}
	return resp, nil
}

// watchdog cancels the exchange when it is not kicked for d.
type watchdog struct {
	d      time.Duration
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
	fire  bool
}

var errIdle = errors.New("idle")

func (w *watchdog) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = time.AfterFunc(w.d, func() {
		w.mu.Lock()
		w.fire = true
		w.mu.Unlock()
		w.cancel(errIdle)
	})
}

func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.fire {
		w.timer.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer.Stop()
}

func (w *watchdog) fired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fire
}

// idleBody kicks the watchdog on every byte through it, and turns the
// failure the watchdog caused into its own error.
type idleBody struct {
	io.ReadCloser
	w    *watchdog
	done func()
	once sync.Once
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.w.kick()
	}
	if err != nil && !errors.Is(err, io.EOF) && b.w.fired() {
		err = IdleError(b.w.d)
	}
	return n, err
}

func (b *idleBody) Close() error {
	err := b.ReadCloser.Close()
	if b.done != nil {
		b.once.Do(b.done)
	}
	return err
}
