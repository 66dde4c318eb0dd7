//go:build unix

package envd

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/creack/pty"
)

func TestReadyReaderTakesWhatCameAndNeverWaits(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	rest := readyReader(r)
	if rest == nil {
		t.Fatal("no ready reader for a pipe, which Go makes non-blocking")
	}
	for _, s := range []string{"one ", "two ", "three"} {
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 64)
	if n := promptly(t, func() int { return rest(buf) }); string(buf[:n]) != "one two three" {
		t.Fatalf("read %q, want the three writes at once", buf[:n])
	}
	// Nothing there: it returns at once rather than waiting for the writer.
	if n := promptly(t, func() int { return rest(buf) }); n != 0 {
		t.Fatalf("read %d bytes from an empty pipe", n)
	}
	// And a buffer that fills ends the read.
	_, _ = w.WriteString("0123456789")
	if n := promptly(t, func() int { return rest(buf[:4]) }); string(buf[:n]) != "0123" {
		t.Fatalf("read %q into 4 bytes", buf[:n])
	}
}

func TestReadyReaderOnATerminal(t *testing.T) {
	m, s, err := pty.Open()
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	defer s.Close()
	defer m.Close()
	// pty.Open's master blocks: no ready reader for it, as for any file
	// whose reads could wait.
	if readyReader(m) != nil {
		t.Fatal("a ready reader for a blocking file")
	}
	master, slave, err := (&Server{}).openPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	rest := readyReader(master)
	if rest == nil {
		t.Fatal("no ready reader for the emulator's own (non-blocking) master")
	}
	for range 3 {
		_, _ = slave.WriteString("line\n")
	}
	buf := make([]byte, 64)
	got := ""
	deadline := time.Now().Add(time.Minute) // a hang guard
	for len(got) < 3*len("line\r\n") && time.Now().Before(deadline) {
		got += string(buf[:promptly(t, func() int { return rest(buf) })])
	}
	if got != "line\r\nline\r\nline\r\n" {
		t.Fatalf("the terminal gave %q", got)
	}
}

func TestReadyReaderLeavesBlockingFilesAlone(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "file"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if readyReader(f) != nil {
		t.Fatal("a ready reader for a regular file")
	}
}

// promptly runs read, failing the test if it waits.
func promptly(t *testing.T, read func() int) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- read() }()
	select {
	case n := <-done:
		return n
	case <-time.After(time.Minute): // a hang guard: the read waits for good
		t.Fatal("the read waited")
		return 0
	}
}
