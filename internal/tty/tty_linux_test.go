//go:build linux

package tty

import (
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// Keys typed during a session that abx never read are not left for the
// program that reads the terminal next (the shell, which would run them):
// giving the terminal its mode back discards them.
func TestRestoreDiscardsKeysNotRead(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { _ = master.Close(); _ = slave.Close() })
	term, ok := Open(slave)
	if !ok {
		t.Fatal("a pseudo-terminal's slave is not taken for a terminal")
	}
	if err := term.Raw(); err != nil {
		t.Fatal(err)
	}
	if _, err := master.Write([]byte("\x10abx terminal\r")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for unread(t, slave.Fd()) < 14 {
		if time.Now().After(deadline) {
			t.Fatalf("the keys did not reach the terminal within a minute: %d bytes", unread(t, slave.Fd()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	term.Restore()
	if n := unread(t, slave.Fd()); n != 0 {
		t.Fatalf("%d bytes typed during the session are left to be read after it", n)
	}
}

// unread is how many bytes the terminal holds for its reader.
func unread(t *testing.T, fd uintptr) int {
	t.Helper()
	n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
