//go:build linux

package process

import (
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// A terminal session's stream is cut every 2 s while its command runs
// 6 s: the screen goes on after each cut, stderr says so, and abx exits
// with the command's 7.
func TestTerminalSurvivesCuts(t *testing.T) {
	t.Parallel()
	s := cutTwice(t)
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { _ = master.Close(); _ = slave.Close() })
	f, io := cmdtest.NewFactory(false, s.env, "")
	f.IO.In, f.IO.StdinTTY = slave, true
	opts := &TerminalOptions{IO: f.IO, Sandboxes: f.Sandboxes, ID: s.id, Argv: []string{"bash", "-c", counting}}
	err = start(t, func() error { return runTerminal(t.Context(), opts) })()
	wantStatus(t, err, 7)
	wantCounted(t, strings.ReplaceAll(io.Out.String(), "\r\n", "\n"))
	if !strings.Contains(io.ErrOut.String(), "abx: the session's stream was cut after") {
		t.Errorf("stderr %q says nothing of a reconnection", io.ErrOut)
	}
}
