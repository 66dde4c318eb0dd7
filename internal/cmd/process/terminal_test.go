//go:build linux

package process

import (
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/emulator/faultproxy"
)

// A terminal session's stream is cut twice while its command runs: the
// screen goes on after each cut, stderr says so, and abx exits
// with the command's 7.
func TestTerminalSurvivesCuts(t *testing.T) {
	t.Parallel()
	s := cutTwice(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { _ = master.Close(); _ = slave.Close() })
	f, io := factorytest.NewFactory(false, s.env, "")
	f.IO.In, f.IO.StdinTTY = slave, true
	opts := &TerminalOptions{IO: f.IO, Sandboxes: f.Sandboxes, ID: s.id, Argv: []string{"bash", "-c", counting}}
	err = start(t, func() error { return runTerminal(t.Context(), opts) })()
	wantStatus(t, err, 7)
	wantCounted(t, strings.ReplaceAll(io.Out.String(), "\r\n", "\n"))
	if !strings.Contains(io.ErrOut.String(), "abx: the session's stream was cut after") {
		t.Errorf("stderr %q says nothing of a reconnection", io.ErrOut)
	}
}

// A cut of a terminal's stream comes while the shell waits at its prompt:
// abx's note takes lines of its own, then the prompt line is drawn again
// under it, so that what is typed next shows after the prompt, as before
// the cut.
func TestTerminalRedrawsThePromptLineAfterItsNote(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, "0.2.10")
	p := s.behind(t)
	cut := make(chan struct{})
	p.Add(faultproxy.Rule{Path: startRPC, Times: 1, Fault: faultproxy.CutWhen(cut)})
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { _ = master.Close(); _ = slave.Close() })
	screen := &screenOf{read: make(chan struct{}, 1)}
	go screen.pump(master)
	f, _ := factorytest.NewFactory(false, s.env, "")
	f.IO.In, f.IO.StdinTTY = slave, true
	f.IO.Out, f.IO.ErrOut, f.IO.StdoutTTY, f.IO.StderrTTY = slave, slave, true, true
	opts := &TerminalOptions{IO: f.IO, Sandboxes: f.Sandboxes, ID: s.id,
		Argv: []string{"bash", "--norc", "--noprofile", "-i"}, Env: map[string]string{"PS1": "PROMPT> "}}
	wait := start(t, func() error { return runTerminal(t.Context(), opts) })
	// The stream is cut once bash has drawn its prompt, the screen's last
	// line then.
	screen.wait(t, regexp.MustCompile(`PROMPT> `))
	close(cut)
	screen.wait(t, regexp.MustCompile(`reattached [^\n]*\n`))
	if _, err := master.WriteString("echo typed-after-the-cut\r"); err != nil {
		t.Fatal(err)
	}
	screen.wait(t, regexp.MustCompile(`[\r\n]typed-after-the-cut\r\n`))
	if _, err := master.WriteString("exit 3\r"); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, wait(), 3)
	after := regexp.MustCompile(`reattached [^\n]*the screen may miss what came in between\r\n(.*)`).FindStringSubmatch(screen.text())
	// The prompt line as bash drew it, its terminal modes included.
	if len(after) < 2 || !regexp.MustCompile(`^(\x1b\[[0-9;?]*[A-Za-z])*PROMPT> echo typed-after-the-cut`).MatchString(after[1]) {
		t.Fatalf("after the note, the screen shows %q, want the prompt line and what was typed", screen.text())
	}
}

// screenOf is what a program wrote to a terminal, read from its master.
type screenOf struct {
	mu   sync.Mutex
	b    []byte
	read chan struct{}
}

func (s *screenOf) pump(master *os.File) {
	buf := make([]byte, 4096)
	for {
		n, err := master.Read(buf)
		s.mu.Lock()
		s.b = append(s.b, buf[:n]...)
		s.mu.Unlock()
		select {
		case s.read <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

func (s *screenOf) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}

// wait waits (up to a minute) until the screen shows re.
func (s *screenOf) wait(t *testing.T, re *regexp.Regexp) {
	t.Helper()
	deadline := time.After(time.Minute)
	for !re.MatchString(s.text()) {
		select {
		case <-s.read:
		case <-deadline:
			t.Fatalf("the screen does not show %q within a minute: %q", re, s.text())
		}
	}
}
