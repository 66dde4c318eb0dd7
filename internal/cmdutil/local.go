package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

// LocalServer is a server abx runs on this machine for other programs: the
// emulator, the engine.
type LocalServer interface {
	// Env are the variables that point a program at the server.
	Env() []string
	// Done is closed when the server stops serving: Close, or a failure.
	Done() <-chan struct{}
	// Close stops the server and what it started, and forgets its record;
	// its error says why the server failed, if it did.
	Close() error
}

// Local is what the verbs that run a local server share (emulator start
// and exec, provider engine serve and exec): start it, print the lines
// that point programs at it, serve until interrupted or run one program
// with them, stop it. Printing the lines again from another shell is the
// env verbs' p.Env of what Start recorded.
type Local struct {
	// Name is what stderr calls the server: "abx emulator".
	Name string
	// Start starts the server; with record, so that the env verb of
	// another shell finds it, where the server is recorded at all.
	Start func(record bool) (LocalServer, error)
	// Serving is what stderr says to people once the server serves:
	// where, and how to point programs at it. One line each.
	Serving func(LocalServer) []string
	// Warnings are what stderr says to anyone, whatever the form (a
	// server that does not isolate its sandboxes). One line each.
	Warnings func(LocalServer) []string
}

// Serve starts the server, prints the lines that point programs at it
// (export lines, or JSON), and serves until ctx ends.
func (l Local) Serve(ctx context.Context, p *output.Printer) error {
	s, err := l.Start(true)
	if err != nil {
		return err
	}
	defer func() { _ = s.Close() }()
	if err := p.Env(s.Env()); err != nil {
		return err
	}
	for _, line := range l.Serving(s) {
		p.Note("%s", line)
	}
	if l.Warnings != nil {
		for _, line := range l.Warnings(s) {
			p.Warn("%s", line)
		}
	}
	select {
	case <-ctx.Done():
	case <-s.Done():
		return fmt.Errorf("%s stopped serving: %w", l.Name, s.Close())
	}
	// Stopping is best effort: requests still open are cut.
	_ = s.Close()
	p.Note("%s stopped", l.Name)
	return nil
}

// Exec starts the server, runs argv with the server's variables added to
// abx's environment (and this abx first on its PATH), stops the server,
// and exits as the program did.
func (l Local) Exec(ctx context.Context, io *output.Streams, argv []string) error {
	s, err := l.Start(false)
	if err != nil {
		return err
	}
	runErr := runChild(ctx, io, argv, append(s.Env(), selfOnPath()...))
	select {
	case <-s.Done(): // it failed while the program ran: the program may say why too
		if err := s.Close(); runErr == nil && err != nil {
			return fmt.Errorf("%s stopped serving: %w", l.Name, err)
		}
	default:
		_ = s.Close() // the program's status is the outcome
	}
	return runErr
}

// childGrace is how long a child has to end after the SIGTERM abx passes
// on: a shell waiting for a foreground command acts on it only once the
// command ends.
const childGrace = 5 * time.Second

// selfOnPath puts this abx first on a child's PATH, so that a script run
// by `go run ./cmd/abx emulator exec` calls the same abx.
func selfOnPath() []string {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{"PATH=" + filepath.Dir(self) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// runChild runs argv with env added to abx's environment and exits as it
// did. An interrupt reaches the child through the terminal's process
// group, and one abx alone gets (a SIGTERM) is passed on as SIGTERM; a
// child that has not ended childGrace later is killed, so that abx, and
// the server it runs, end within a bound.
func runChild(ctx context.Context, io *output.Streams, argv []string, env []string) error {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), env...)
	c.Stdin, c.Stdout, c.Stderr = io.In, io.Out, io.ErrOut
	if err := c.Start(); err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot run %s: %v", argv[0], errors.Unwrap(err)).
			WithHint("check the command name and that it is executable")
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = c.Process.Signal(syscall.SIGTERM)
		case <-done:
			return
		}
		select {
		case <-time.After(childGrace):
			_ = c.Process.Kill()
		case <-done:
		}
	}()
	err := c.Wait()
	close(done)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return abxerr.Status(abxerr.SignalStatus(int(ws.Signal())))
		}
		return abxerr.Status(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return nil
}
