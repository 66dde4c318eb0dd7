// Package remoteproc runs and follows processes in a sandbox through envd:
// the command line bash is given, abx's stdin streamed to it, Ctrl-C
// forwarded as signals, deadlines, and the exit status it ended with. It
// knows nothing of the command line or of output formats: what a process
// does goes to a Sink.
package remoteproc

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/shell"
)

// Spec is a command to run in a sandbox.
type Spec struct {
	Argv    []string
	Cwd     string // "" is the user's home
	Env     map[string]string
	Timeout time.Duration // 0: none
	// Interactive keeps the command's stdin open: Stdin is streamed to it
	// (or, in the background, it waits for data sent later).
	Interactive bool
	Stdin       io.Reader
	// Signals delivers Ctrl-C; nil uses the process's own.
	Signals <-chan os.Signal
}

// Sink is told what a process does, as it happens.
type Sink interface {
	Started(pid uint32) error
	Stdout(data []byte) error
	Stderr(data []byte) error
}

// Exit is how a process ended.
type Exit struct {
	Code   int    // its status, or 128+n when signal n ended it
	Status string // envd's words: "exit status 3", "signal: killed"
}

// stdinChunk bounds each piece of stdin sent: abx's stdin is streamed,
// never read whole.
const stdinChunk = 64 << 10

// command wraps the line for envd. stdin is /dev/null unless the command is
// interactive: envd 0.2.10 gives every process a pipe that never closes,
// so a command reading stdin would wait for ever. A background command's
// output goes nowhere: envd drops output nobody reads, and a full pipe can
// wedge the process.
func command(spec Spec, background bool) envd.Command {
	var redirect string
	if !spec.Interactive {
		redirect += "exec </dev/null; "
	}
	if background {
		redirect += "exec >/dev/null 2>&1; "
	}
	return envd.Command{
		Cmd:   "/bin/bash",
		Args:  []string{"-l", "-c", redirect + shell.Line(spec.Argv)},
		Env:   spec.Env,
		Cwd:   spec.Cwd,
		Stdin: spec.Interactive,
	}
}

// forward sends each event's output to the sink.
func forward(sink Sink, ev envd.Event) error {
	switch {
	case ev.Stdout != nil:
		return sink.Stdout(ev.Stdout)
	case ev.Stderr != nil:
		return sink.Stderr(ev.Stderr)
	}
	return nil
}

// Feed streams r to the process's stdin, then closes it where envd can.
func Feed(ctx context.Context, c *envd.Client, pid uint32, r io.Reader) (int, error) {
	buf := make([]byte, stdinChunk)
	sent := 0
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if err := c.SendStdin(ctx, pid, buf[:n]); err != nil {
				return sent, err
			}
			sent += n
		}
		if errors.Is(rerr, io.EOF) {
			return sent, nil
		}
		if rerr != nil {
			return sent, abxerr.New(abxerr.InvalidInput, "cannot read stdin: %v", rerr)
		}
	}
}

// Attach follows a running process's output until it ends. Output from
// before is not kept by envd.
func Attach(ctx context.Context, c *envd.Client, pid uint32, sink Sink) (*Exit, error) {
	end, err := c.Connect(ctx, pid, func(ev envd.Event) error { return forward(sink, ev) })
	if err != nil {
		return nil, envd.AsError(err)
	}
	return exitOf(end), nil
}

// Background starts the command, returns its pid and detaches.
func Background(ctx context.Context, c *envd.Client, spec Spec) (uint32, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var pid uint32
	_, err := c.Start(ctx, command(spec, true), func(ev envd.Event) error {
		if ev.Started != nil {
			pid = *ev.Started
			return errDetach
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDetach) {
		return 0, startError(err)
	}
	if pid == 0 {
		return 0, abxerr.New(abxerr.BadResponse, "envd did not report the process's pid")
	}
	return pid, nil
}

// errDetach stops following a stream on purpose.
var errDetach = errors.New("detach")

// startError reports a failed start; a command envd could not find has a
// status of its own (127, as a shell says).
func startError(err error) error {
	err = envd.AsError(err)
	if errors.Is(err, envd.ErrCommandNotFound) {
		e := *abxerr.From(err)
		e.Exit = abxerr.ExitCommandNotFound
		return &e
	}
	return err
}

// exitOf is the status a process ended with: its own, or 128+n for a
// signal (envd reports those as -1 with the signal in the status).
func exitOf(end *envd.End) *Exit {
	x := &Exit{Code: end.ExitCode, Status: end.Status}
	if end.Exited || end.ExitCode >= 0 {
		return x
	}
	x.Code = 128 + int(syscall.SIGKILL)
	for n, name := range signalNames {
		if strings.HasSuffix(end.Status, name) {
			x.Code = 128 + n
		}
	}
	return x
}

// signalNames are how Go (and so envd) words the signals a command dies of.
var signalNames = map[int]string{
	1: "hangup", 2: "interrupt", 3: "quit", 4: "illegal instruction", 6: "aborted", 7: "bus error",
	8: "floating point exception", 9: "killed", 11: "segmentation fault", 13: "broken pipe",
	14: "alarm clock", 15: "terminated", 10: "user defined signal 1", 12: "user defined signal 2",
}
