package localserver

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/tty"
)

// Server is a server abx runs on this machine for other programs: the
// emulator, the engine.
type Server interface {
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
	Start func(record bool) (Server, error)
	// Serving is what stderr says to people once the server serves:
	// where, and how to point programs at it. One line each.
	Serving func(Server) []string
	// Warnings are what stderr says to anyone, whatever the form (a
	// server that does not isolate its sandboxes). One line each.
	Warnings func(Server) []string

	// signals and foreground stand in for the signals abx gets and for
	// tty.Foreground, in tests; nil: the real ones.
	signals    <-chan os.Signal
	foreground func() bool
	// grace stands in for childGrace, in tests; zero: childGrace.
	grace time.Duration
}

// Serve starts the server, prints the lines that point programs at it
// (export lines, or JSON), and serves until ctx ends.
func (l Local) Serve(ctx context.Context, p *output.Printer) error {
	// Caught from before the server starts, whatever it does before it
	// waits (print, keep its profile): a Ctrl-C once it has said where it
	// is stops it the same way, never by the signal's default action,
	// which would leave its sandboxes' processes behind.
	interrupted := ctx.Done()
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
	case <-interrupted:
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
// and exits as the program did (docs/exit-codes.md). The signals abx gets
// meanwhile are the program's to act on (runChild).
func (l Local) Exec(ctx context.Context, io *output.Streams, argv []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	sigs, foreground := l.signals, l.foreground
	if sigs == nil {
		// Caught from before the server starts: one that comes while it
		// starts stops it rather than leaving it behind.
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		sigs = ch
	}
	if foreground == nil {
		foreground = tty.Foreground
	}
	s, err := l.Start(false)
	if err != nil {
		return err
	}
	select {
	case <-sigs:
		_ = s.Close()
		return abxerr.New(abxerr.Interrupted, "interrupted before %s ran", argv[0])
	default:
	}
	ch := child{argv: argv, env: append(s.Env(), selfOnPath()...), signals: sigs, foreground: foreground, grace: l.grace}
	runErr := ch.run(io)
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

// selfOnPath puts this abx first on a child's PATH, so that a script run
// by `go run ./cmd/abx emulator exec` calls the same abx.
func selfOnPath() []string {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{"PATH=" + filepath.Dir(self) + string(os.PathListSeparator) + os.Getenv("PATH")}
}
