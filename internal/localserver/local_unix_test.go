//go:build unix

package localserver

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

// testLocal is a Local over a fake server, with signals sent by the test
// and a terminal that is abx's foreground when foreground is true.
func testLocal(s *fakeServer, sigs chan os.Signal, foreground bool) Local {
	return Local{Name: "abx thing", Start: func(bool) (Server, error) { return s, nil },
		signals: sigs, foreground: func() bool { return foreground }}
}

// A program that is not there exits 127, one there that cannot run 126,
// as a shell says, with one line that names it; the server is stopped.
func TestExecOfAProgramThatCannotStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.sh")
	badInterp := filepath.Join(dir, "bad-interpreter.sh")
	if err := os.WriteFile(plain, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(badInterp, []byte("#!/abx/no/such/shell\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv0, message string
		status         int
	}{
		{"abx-no-such-program", "abx-no-such-program: command not found", abxerr.ExitCommandNotFound},
		{filepath.Join(dir, "missing"), filepath.Join(dir, "missing") + ": no such file or directory", abxerr.ExitCommandNotFound},
		{plain, plain + ": permission denied", abxerr.ExitCannotRun},
		{dir, dir + ": is a directory", abxerr.ExitCannotRun},
		{badInterp, badInterp + ": bad interpreter: no such file or directory", abxerr.ExitCannotRun},
	} {
		s := &fakeServer{done: make(chan struct{})}
		io, _, out, _ := output.Test(false)
		err := testLocal(s, make(chan os.Signal), false).Exec(context.Background(), io, []string{tc.argv0, "arg"})
		if got := abxerr.Exit(err, true); got != tc.status {
			t.Errorf("%s: exit %d, want %d (%v)", tc.argv0, got, tc.status, err)
		}
		e := abxerr.From(err)
		if e.Message != tc.message || e.Hint == "" || e.Code != abxerr.InvalidInput {
			t.Errorf("%s: error %s %q (hint %q), want E1002 %q with a hint", tc.argv0, e.Code, e.Message, e.Hint, tc.message)
		}
		if s.closed == 0 || out.Len() != 0 {
			t.Errorf("%s: server closed %d times, stdout %q", tc.argv0, s.closed, out)
		}
	}
}

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
}

// trapping is a child that reports each of INT and TERM it gets on
// stdout and exits 42 at INT, 43 at TERM, unless told to go on at INT
// ("on") or at both ("always").
const trapping = `trap 'echo got INT; case "$1" in on|always) ;; *) exit 42 ;; esac' INT
trap 'echo got TERM; [ "$1" = always ] || exit 43' TERM
echo ready
while :; do sleep 0.05; done`

// runTrapping runs trapping on its own goroutine and returns its stdout
// once it says it is ready, and the channel of Exec's error.
func runTrapping(t *testing.T, l Local, arg string) (*bufio.Reader, <-chan error) {
	t.Helper()
	io, _, _, _ := output.Test(false)
	r, w := ioPipe(t)
	io.Out = w
	done := make(chan error, 1)
	go func() {
		err := l.Exec(context.Background(), io, []string{"bash", "-c", trapping, "trapping", arg})
		_ = w.Close()
		done <- err
	}()
	out := bufio.NewReader(r)
	if line, err := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("the child said %q (%v)", line, err)
	}
	return out, done
}

func ioPipe(t *testing.T) (*io.PipeReader, *io.PipeWriter) {
	t.Helper()
	r, w := io.Pipe()
	t.Cleanup(func() { _ = r.Close() })
	return r, w
}

// A Ctrl-C or a SIGTERM sent to abx alone goes on to the child, which
// decides: abx exits with the status the child chose.
func TestExecPassesOnTheSignalsSentToAbxAlone(t *testing.T) {
	t.Parallel()
	needBash(t)
	for sig, want := range map[os.Signal]int{os.Interrupt: 42, syscall.SIGTERM: 43} {
		sigs := make(chan os.Signal, 1)
		s := &fakeServer{done: make(chan struct{})}
		out, done := runTrapping(t, testLocal(s, sigs, false), "")
		sigs <- sig
		rest, _ := io.ReadAll(out) // to the end: the child's, and Exec's
		err := <-done
		if got := abxerr.Exit(err, true); got != want {
			t.Errorf("%v: exit %d, want %d (%v)", sig, got, want, err)
		}
		if !strings.HasPrefix(string(rest), "got ") {
			t.Errorf("%v: the child said %q", sig, rest)
		}
	}
}

// A signal sent to abx alone asks it to end within a bound, whatever the
// child does with it: one that goes on (a shell that waits for a command
// goes on after a SIGINT sent to it alone, when the command did not end of
// it) is killed the grace later, and abx exits as the kill ended it.
func TestExecEndsAChildThatGoesOnAfterASignal(t *testing.T) {
	t.Parallel()
	needBash(t)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		sigs := make(chan os.Signal, 1)
		s := &fakeServer{done: make(chan struct{})}
		l := testLocal(s, sigs, false)
		l.grace = 50 * time.Millisecond
		out, done := runTrapping(t, l, "always")
		// Passing the signal on is TestExecPassesOnTheSignalsSentToAbxAlone's;
		// the kill may come before the child's trap.
		go func() { _, _ = io.Copy(io.Discard, out) }()
		sigs <- sig
		select {
		case err := <-done:
			if got := abxerr.Exit(err, true); got != 128+int(syscall.SIGKILL) {
				t.Errorf("%v: exit %d, want %d (%v)", sig, got, 128+int(syscall.SIGKILL), err)
			}
		case <-time.After(time.Minute): // a hang guard
			t.Fatalf("%v: abx still waits for a child that went on", sig)
		}
	}
}

// A shell script that gets a SIGINT alone while it waits for a command
// goes on when the command ends of itself (it never got the signal), here
// to a long sleep: abx kills it the grace later, whichever the script was
// doing when the signal came.
func TestExecEndsAScriptThatGoesOnAfterASigint(t *testing.T) {
	t.Parallel()
	needBash(t)
	sigs := make(chan os.Signal, 1)
	s := &fakeServer{done: make(chan struct{})}
	l := testLocal(s, sigs, false)
	l.grace = 50 * time.Millisecond
	streams, _, _, _ := output.Test(false)
	r, w := ioPipe(t)
	streams.Out = w
	done := make(chan error, 1)
	go func() {
		done <- l.Exec(context.Background(), streams, []string{"bash", "-c", `sh -c 'echo ready; sleep 0.5'; exec sleep 600`})
		_ = w.Close()
	}()
	out := bufio.NewReader(r)
	if line, err := out.ReadString('\n'); line != "ready\n" {
		t.Fatalf("the child said %q (%v)", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	sigs <- os.Interrupt
	select {
	case err := <-done:
		// 137 when the script went on; 130 when the signal came before
		// it waited.
		if got := abxerr.Exit(err, true); got != 137 && got != 130 {
			t.Errorf("exit %d, want 137 or 130 (%v)", got, err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("abx still waits for a script that went on")
	}
}

// A Ctrl-C typed on abx's terminal reached the child with abx: abx sends
// no second one, and the child, which goes on, ends only at the SIGTERM.
func TestExecLeavesATerminalsCtrlCToTheChild(t *testing.T) {
	t.Parallel()
	needBash(t)
	sigs := make(chan os.Signal, 2)
	s := &fakeServer{done: make(chan struct{})}
	out, done := runTrapping(t, testLocal(s, sigs, true), "on")
	sigs <- os.Interrupt
	sigs <- syscall.SIGTERM
	rest, _ := io.ReadAll(out)
	err := <-done
	if got := abxerr.Exit(err, true); got != 43 {
		t.Errorf("exit %d, want 43 (%v)", got, err)
	}
	if string(rest) != "got TERM\n" {
		t.Errorf("the child said %q, want only the TERM", rest)
	}
}

// A signal as the child ends it is the child's status: 128+n.
func TestExecExitsAsTheChildDid(t *testing.T) {
	t.Parallel()
	needBash(t)
	for line, want := range map[string]int{"exit 7": 7, "kill -TERM $$": 143, "kill -KILL $$": 137, "true": 0} {
		s := &fakeServer{done: make(chan struct{})}
		io, _, _, _ := output.Test(false)
		err := testLocal(s, make(chan os.Signal), false).Exec(context.Background(), io, []string{"bash", "-c", line})
		if got := abxerr.Exit(err, true); got != want {
			t.Errorf("%s: exit %d, want %d (%v)", line, got, want, err)
		}
	}
}

// A Ctrl-C while the server starts stops it, and the program never runs.
func TestExecInterruptedWhileTheServerStarts(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 1)
	s := &fakeServer{done: make(chan struct{})}
	l := testLocal(s, sigs, false)
	l.Start = func(bool) (Server, error) { sigs <- os.Interrupt; return s, nil }
	io, _, out, _ := output.Test(false)
	err := l.Exec(context.Background(), io, []string{"echo", "ran"})
	if got := abxerr.Exit(err, true); got != abxerr.ExitInterrupted || s.closed == 0 || out.Len() != 0 {
		t.Errorf("exit %d (%v), server closed %d times, stdout %q", got, err, s.closed, out)
	}
}
