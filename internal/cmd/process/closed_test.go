//go:build linux

package process

import (
	"context"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/remoteproc"
)

// A stdout whose reader went away, as the streams of a process with
// SIGPIPE caught see it: the first write goes through, every later one
// fails with EPIPE.
type closedAfterOne struct {
	mu    sync.Mutex
	wrote bool
}

func (w *closedAfterOne) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.wrote {
		return 0, &fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}
	}
	w.wrote = true
	return len(b), nil
}

// exec whose reader left stops the command, as a Ctrl-C does, and ends
// with the quiet E7002 (exit 141), in both forms of its output.
func TestExecStopsTheCommandWhenTheReaderLeaves(t *testing.T) {
	t.Parallel()
	for _, json := range []bool{false, true} {
		t.Run(map[bool]string{false: "people", true: "json"}[json], func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, "0.2.10")
			a := sleepMark()
			opts, _ := s.exec(t, "sleep "+a+" & while :; do echo out; sleep 0.1; done", make(chan os.Signal))
			opts.IO.Out = &closedAfterOne{}
			opts.Printer = output.NewPrinter(opts.IO)
			if json {
				if err := opts.Printer.FormatValue().Set("json"); err != nil {
					t.Fatal(err)
				}
			}
			wait := start(t, func() error { return runExec(t.Context(), opts) })
			err := wait()
			if !output.Closed(err) || abxerr.Exit(err, true) != abxerr.ExitOutputClosed {
				t.Errorf("error %v (exit %d), want E7002 (exit 141)", err, abxerr.Exit(err, true))
			}
			waitSleepers(t, 0, a)
		})
	}
}

// A terminal session whose screen nobody reads any more ends as at a
// hang-up: the process abx started is killed.
func TestTerminalEndsWhenTheScreenIsGone(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	a := sleepMark()
	f, _ := s.factory(t)
	c, err := f.Sandboxes.Envd(t.Context(), s.id, "", provider.PTY)
	if err != nil {
		t.Fatal(err)
	}
	keys, w := io.Pipe() // nothing typed
	defer func() { _ = w.Close() }()
	term := remoteproc.Terminal{
		Spec:   remoteproc.Spec{Argv: []string{"/bin/bash", "-c", "sleep " + a + " & while :; do echo out; sleep 0.1; done"}},
		Keys:   keys,
		Screen: &closedAfterOne{},
	}
	wait := start(t, func() error { _, err := term.Run(context.WithoutCancel(t.Context()), c); return err })
	if err := wait(); err == nil {
		t.Error("the session ended without an error")
	}
	waitSleepers(t, 0, a)
}
