package remoteproc

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
)

// Run starts spec in the foreground and follows it to its end: output to
// the sink as it arrives, abx's stdin to the process when interactive, the
// first Ctrl-C sent as SIGTERM and the second as SIGKILL.
//
// It returns how the process ended, and an error when abx did not see it
// end by itself: the deadline passed (Timeout), the user interrupted it
// (Interrupted, with the Exit when the process still reported its end), or
// abx failed.
func Run(ctx context.Context, c *envd.Client, spec Spec, sink Sink) (*Exit, error) {
	// The stream outlives the first Ctrl-C, which only asks the remote
	// process to stop; its end event still decides what abx reports.
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	if spec.Timeout > 0 {
		streamCtx, cancel = context.WithTimeout(streamCtx, spec.Timeout)
		defer cancel()
	}
	sigs := spec.Signals
	if sigs == nil {
		ch := make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	it := &interrupter{ctx: ctx, c: c, cancel: cancel}
	done := make(chan struct{})
	defer close(done)
	go it.watch(sigs, done)

	end, err := c.Start(streamCtx, command(spec, false), func(ev envd.Event) error {
		if ev.Started == nil {
			return forward(sink, ev)
		}
		it.started(*ev.Started)
		if spec.Interactive {
			go pump(streamCtx, c, *ev.Started, spec.Stdin)
		}
		return sink.Started(*ev.Started)
	})
	interrupted := it.interrupted()
	if err != nil {
		// Connect can report the deadline a moment before the context's
		// own timer marks it: either way it is --timeout's.
		if spec.Timeout > 0 && (streamCtx.Err() == context.DeadlineExceeded ||
			abxerr.From(envd.AsError(err)).Code == abxerr.Timeout) {
			return nil, abxerr.New(abxerr.Timeout, "the command did not finish within %s and was killed", spec.Timeout)
		}
		if interrupted {
			return nil, abxerr.New(abxerr.Interrupted, "interrupted")
		}
		return nil, startError(err)
	}
	x := exitOf(end)
	if interrupted {
		return x, abxerr.New(abxerr.Interrupted, "interrupted: the command ended with %s", end.Status)
	}
	return x, nil
}

// pump streams abx's stdin to the process and closes the process's stdin
// at the end where envd can (0.5.2 and later).
func pump(ctx context.Context, c *envd.Client, pid uint32, in io.Reader) {
	if _, err := Feed(ctx, c, pid, in); err == nil && c.CanCloseStdin() {
		_ = c.CloseStdin(ctx, pid)
	}
}

// interrupter turns Ctrl-C into signals to the remote process: SIGTERM
// first, SIGKILL on the second, which also stops waiting, since children
// the command left behind can hold its output open for ever. A Ctrl-C that
// comes before the process started is sent when it starts.
type interrupter struct {
	ctx    context.Context
	c      *envd.Client
	cancel context.CancelFunc

	mu    sync.Mutex
	pid   uint32
	count int
}

func (it *interrupter) watch(sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-sigs:
			it.mu.Lock()
			it.count++
			pid, kill := it.pid, it.count > 1
			it.mu.Unlock()
			if pid != 0 {
				it.signal(pid, kill)
			}
			if kill {
				it.cancel()
			}
		}
	}
}

func (it *interrupter) started(pid uint32) {
	it.mu.Lock()
	it.pid = pid
	pending := it.count > 0
	it.mu.Unlock()
	if pending {
		it.signal(pid, false)
	}
}

func (it *interrupter) interrupted() bool {
	it.mu.Lock()
	defer it.mu.Unlock()
	return it.count > 0
}

// signal sends SIGTERM (or SIGKILL) to the remote process, even though
// abx's own context is being cancelled by the interrupt.
func (it *interrupter) signal(pid uint32, kill bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(it.ctx), 10*time.Second)
	defer cancel()
	_ = it.c.Signal(ctx, pid, kill)
}
