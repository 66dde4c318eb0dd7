package remoteproc

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestRelayPassesEveryByteThroughARealTerminal types what encode makes
// into the relay script running on a kernel pseudo-terminal, as envd runs
// it, and reads the FIFO back: every byte value, lines longer than the
// line discipline holds, bytes that are keys (Ctrl-C, Ctrl-D, Ctrl-V, Ctrl-S,
// DEL, CR), a last line without a newline, and nothing at all, arrive as
// they were, and the end of the input is the FIFO's end of file.
func TestRelayPassesEveryByteThroughARealTerminal(t *testing.T) {
	t.Parallel()
	every := make([]byte, 0, 256*8)
	for range 8 {
		for b := range 256 {
			every = append(every, byte(b))
		}
	}
	random := make([]byte, 300<<10)
	_, _ = rand.Read(random)
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"every byte value", every},
		{"random", random},
		{"keys", []byte("\x03\x04\x16\x13\x11\x7f\r\n\x04\x04\x15\x17\x12\x1a\x1c")},
		{"a long line", bytes.Repeat([]byte("x"), 20000)},
		{"lines", []byte("a\nb\n")},
		{"no newline at the end", []byte("a\nlast")},
		{"empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := throughRelay(t, tc.in); !bytes.Equal(got, tc.in) {
				t.Errorf("%d bytes in, %d out; first difference at %d", len(tc.in), len(got), firstDiff(got, tc.in))
			}
		})
	}
}

func throughRelay(t *testing.T, in []byte) []byte {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "stdin")
	fifo := filepath.Join(dir, "in")
	cmd := exec.Command("/bin/bash", "-c", relayScript, relayName, dir)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = master.Close()
	})
	ready := make(chan error, 1)
	go func() {
		r := bufio.NewReader(master)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				ready <- err
				return
			}
			if strings.TrimSpace(l) == "ready" {
				ready <- nil
				_, _ = io.Copy(io.Discard, r) // the relay says nothing more
				return
			}
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("the relay did not say ready: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not say ready within 30s")
	}
	out := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // what the command's 'exec <FIFO' does
		if err != nil {
			out <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		out <- b
	}()
	// In pieces of stdinChunk, as feed sends them, then end of file.
	var buf []byte
	for rest := in; len(rest) > 0; {
		n := min(len(rest), stdinChunk)
		buf = encode(buf[:0], rest[:n])
		if _, err := master.Write(buf); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if _, err := master.Write([]byte{ctrlD}); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-out:
		return b
	case <-time.After(60 * time.Second):
		t.Fatal("no end of file on the FIFO within a minute")
		return nil
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
