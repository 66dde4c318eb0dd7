//go:build linux

package jail_test

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// terminal is a pty's master end and everything read from it.
type terminal struct {
	master *os.File
	mu     sync.Mutex
	out    strings.Builder
	done   chan error // the read's end: EIO once no process holds the slave
}

func newTerminal(master *os.File) *terminal {
	tm := &terminal{master: master, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				tm.done <- err
				return
			}
		}
	}()
	return tm
}

func (tm *terminal) String() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

// waitOutput waits (2 minutes at most, a hang guard) until the terminal has shown want.
func (tm *terminal) waitOutput(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(tm.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal within 2 minutes; it shows %q", want, tm.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tm *terminal) write(t *testing.T, s string) {
	t.Helper()
	if _, err := tm.master.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func resize(t *testing.T, master *os.File, rows, cols uint16) {
	t.Helper()
	raw, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	_ = raw.Control(func(fd uintptr) {
		err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A command started with Tty runs on a terminal of the box's own, which
// it controls: tty names it, its size is the master's, a resize reaches
// it as SIGWINCH, ^C interrupts its foreground job, and its input comes
// in order.
func TestBoxRunsACommandOnATerminal(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	master, slave, err := b.b.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = master.Close() }()
	resize(t, master, 33, 101)
	script := `tty; stty size; trap 'echo winched' WINCH; echo ready
read a; stty size
trap 'echo caught' INT; sh -c 'echo sleeping; exec sleep 30'; echo "after $?"
read b; echo "got $b"; exit 3`
	cmd := b.b.Command(jail.Spec{Dir: "/home/user", Args: []string{"bash", "-c", script}, Tty: true,
		Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/user"}})
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = slave.Close()
	tm := newTerminal(master)
	tm.waitOutput(t, "ready")
	if out := tm.String(); !strings.Contains(out, "/dev/pts/") || !strings.Contains(out, "33 101\r\n") {
		t.Errorf("tty and stty size: %q", out)
	}
	resize(t, master, 40, 120)
	tm.write(t, "go\n")
	tm.waitOutput(t, "40 120\r\n")
	tm.waitOutput(t, "winched")
	// Once the command prints, it is in the terminal's foreground group.
	tm.waitOutput(t, "sleeping")
	tm.write(t, "\x03")
	tm.waitOutput(t, "caught")
	tm.waitOutput(t, "after 130")
	tm.write(t, "one two\n")
	tm.waitOutput(t, "got one two")
	err = cmd.Wait()
	var exit *spawn.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("exit: %v", err)
	}
	select {
	case err := <-tm.done:
		if !errors.Is(err, unix.EIO) {
			t.Errorf("the master's end: %v", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Error("the master did not end within 2 minutes of the command's")
	}
}

// A box started by an emulator that was itself started with SIGINT
// ignored and signals blocked (a script's `abx emulator start &`, a CI
// runner) starts its commands as a real init does, with neither: Ctrl-C on
// a terminal still interrupts.
func TestBoxTerminalUnderInheritedSignals(t *testing.T) {
	t.Parallel()
	jailtest.Need(t)
	jailtest.Rerun(t, "^(TestBoxRunsACommandOnATerminal|TestBoxCommandsStartWithDefaultSignals)$")
}

// A command of a box starts with every signal's default disposition and
// none blocked, whatever the emulator was started with.
func TestBoxCommandsStartWithDefaultSignals(t *testing.T) {
	t.Parallel()
	if jailtest.IsRerun() && !spawn.InheritsSignals() {
		t.Fatal("started with signals ignored and blocked, yet a child of this process would not inherit them")
	}
	b := newBox(t)
	out, code := b.run(t, false, "grep -E '^Sig(Blk|Ign):' /proc/self/status")
	if code != 0 || out != "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
