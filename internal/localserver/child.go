package localserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

// childGrace is how long a child has to end after the SIGTERM abx passes
// on: a shell waiting for a foreground command acts on it only once the
// command ends.
const childGrace = 5 * time.Second

// child is the program `emulator exec` and `provider engine exec` run,
// with the server's variables added to abx's environment.
type child struct {
	argv, env []string
	// signals are the ones abx gets while the child runs.
	signals <-chan os.Signal
	// foreground tells whether a Ctrl-C came from abx's terminal, which
	// sent it to the child too (tty.Foreground).
	foreground func() bool
	// grace is childGrace, or less in tests.
	grace time.Duration
}

// run runs the child and exits as it did, as a shell's job: its status,
// 128+n when signal n ended it, 127 or 126 when it could not start.
//
// A Ctrl-C typed on abx's terminal reached the child already (the
// terminal signals the whole foreground group): the child decides what it
// does, and abx waits for it, as a shell waits for its job (a REPL goes
// on). A SIGINT or SIGTERM sent to abx alone is passed on, and a child
// that has not ended childGrace later is killed, so that abx, and the
// server it runs, end within a bound: a shell script that gets a SIGINT
// alone while it waits for a command goes on once the command ends of
// itself, and would run to its end.
func (ch child) run(io *output.Streams) error {
	c := exec.Command(ch.argv[0], ch.argv[1:]...)
	c.Env = append(os.Environ(), ch.env...)
	c.Stdin, c.Stdout, c.Stderr = io.In, io.Out, io.ErrOut
	// Streams that are not files are copied; a process the child left
	// behind may hold their pipes open after the child ended.
	c.WaitDelay = ch.graceOr()
	if err := c.Start(); err != nil {
		return cannotStart(ch.argv[0], err)
	}
	done := make(chan struct{})
	go ch.relay(c.Process, done)
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
		return fmt.Errorf("%s: %w", strings.Join(ch.argv, " "), err)
	}
	return nil
}

// relay passes the signals abx gets on to p until done, and kills p the
// grace after the first one sent to abx alone.
func (ch child) relay(p *os.Process, done <-chan struct{}) {
	var kill <-chan time.Time
	for {
		select {
		case <-done:
			return
		case sig := <-ch.signals:
			if sig == os.Interrupt && ch.foreground() {
				continue // the terminal sent it to p as well
			}
			_ = p.Signal(sig)
			if kill == nil {
				kill = time.After(ch.graceOr())
			}
		case <-kill:
			_ = p.Kill()
			return
		}
	}
}

func (ch child) graceOr() time.Duration {
	if ch.grace > 0 {
		return ch.grace
	}
	return childGrace
}

// cannotStart says why a program did not start as a shell says it, and
// with a shell's status (docs/exit-codes.md): 127 when it is not there,
// 126 when it is there but cannot run.
func cannotStart(name string, err error) error {
	var pe *fs.PathError
	var ee *exec.Error
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return abxerr.CommandNotFound(abxerr.New(abxerr.InvalidInput, "%s: command not found", name).
			WithHint("check its name, or give its path"))
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(name); serr == nil {
			// The file is there: the interpreter its #! line names is not.
			return abxerr.CannotRun(abxerr.New(abxerr.InvalidInput, "%s: bad interpreter: no such file or directory", name).
				WithHint("check its #! line"))
		}
		return abxerr.CommandNotFound(abxerr.New(abxerr.InvalidInput, "%s: no such file or directory", name).
			WithHint("check its path"))
	case errors.As(err, &pe):
		why := pe.Err.Error()
		if st, serr := os.Stat(name); serr == nil && st.IsDir() {
			why = "is a directory"
		}
		return abxerr.CannotRun(abxerr.New(abxerr.InvalidInput, "%s: %s", name, why).
			WithHint("check that it is a program or a script with its x bit set (chmod +x)"))
	case errors.As(err, &ee):
		return abxerr.CannotRun(abxerr.New(abxerr.InvalidInput, "%s: %v", name, ee.Err))
	}
	return abxerr.New(abxerr.Internal, "cannot start %s: %v", name, err)
}
