//go:build unix

package files

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// Uploads go to a temporary name beside the destination and are renamed
// onto it when complete: a reader never sees half a file, and a failed or
// interrupted upload leaves the destination as it was.

// within bounds the waits of these tests: generous, for loaded machines.
const within = 20 * time.Second

// names lists a sandbox directory (under the home), "" for none.
func (s *fakeSandbox) names(t *testing.T, rel string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.home, filepath.FromSlash(rel)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

func TestWriteInterruptedLeavesTheDestinationAsItWas(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, old string // old: what the destination held before, "" for nothing
	}{{"new file", ""}, {"existing file", "old content\n"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newFakeSandbox(t)
			want := ""
			if tc.old != "" {
				s.put(t, "out/data.bin", tc.old)
				want = "data.bin"
			}
			f, _ := s.factory(t, false, "")
			// A stdin that gives some bytes, then nothing, without ending.
			stdin, w := io.Pipe()
			defer func() { _ = w.Close() }()
			go func() { _, _ = w.Write(bytes.Repeat([]byte("x"), 256<<10)) }()
			f.IO.In = stdin
			opts := &WriteOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes, ID: s.id, Path: "out/data.bin"}}
			ctx, cancel := context.WithCancel(t.Context())
			errc := make(chan error, 1)
			go func() { errc <- runWrite(ctx, opts) }()

			// Interrupted once the bytes are arriving in the sandbox.
			for deadline := time.Now().Add(within); ; time.Sleep(20 * time.Millisecond) {
				tmps, _ := filepath.Glob(filepath.Join(s.home, "out", ".data.bin.abx-*"))
				if len(tmps) == 1 {
					if st, err := os.Stat(tmps[0]); err == nil && st.Size() > 0 {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("no temporary file filling up in out/: %q", s.names(t, "out"))
				}
			}
			cancel() // what Ctrl-C does to the root context
			select {
			case err := <-errc:
				if e := abxerr.From(err); e == nil || e.Code != abxerr.Interrupted {
					t.Errorf("error %v, want E7001", err)
				}
			case <-time.After(within):
				t.Fatal("files write did not stop when interrupted")
			}
			if got := s.names(t, "out"); got != want {
				t.Errorf("out/ holds %q, want %q", got, want)
			}
			if got, _ := s.get(t, "out/data.bin"); got != tc.old {
				t.Errorf("out/data.bin holds %q, want %q", got, tc.old)
			}
		})
	}
}

// A stdin with nothing on it: Ctrl-C is not held up by the read, and
// nothing is left in the sandbox.
func TestWriteInterruptedBeforeAnyByte(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "out/keep.txt", "kept\n")
	f, _ := s.factory(t, false, "")
	stdin, w := io.Pipe() // never written to
	defer func() { _ = w.Close() }()
	f.IO.In = stdin
	opts := &WriteOptions{IO: f.IO, Printer: f.Printer, target: target{Sandboxes: f.Sandboxes, ID: s.id, Path: "out/data.bin"}}
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- runWrite(ctx, opts) }()
	time.Sleep(500 * time.Millisecond) // the upload is under way, waiting for stdin
	cancel()
	select {
	case err := <-errc:
		if e := abxerr.From(err); e == nil || e.Code != abxerr.Interrupted {
			t.Errorf("error %v, want E7001", err)
		}
	case <-time.After(within):
		t.Fatal("files write did not stop when interrupted")
	}
	if got := s.names(t, "out"); got != "keep.txt" {
		t.Errorf("out/ holds %q", got)
	}
}

// Writes and uploads that succeed replace the destination whole and leave
// no temporary file.
func TestUploadsLeaveNoTemporaryFile(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "w/file.txt", "old\n")
	s.put(t, "copied/one.txt", "old one\n")
	local := t.TempDir()
	transfertest.WriteTree(t, local, map[string]string{"one.txt": "one\n", "a/deep.txt": "deep\n"})

	f, io := s.factory(t, false, "")
	io.In.WriteString("new\n")
	checkErr(t, cmdtest.Exec(NewCmdFiles(f), "write", s.id, "w/file.txt"), "", "")
	f, _ = s.factory(t, false, "")
	checkErr(t, cmdtest.Exec(NewCmdFiles(f), "cp", filepath.Join(local, "one.txt"), s.id+":w/up.txt"), "", "")
	f, _ = s.factory(t, false, "")
	// DIR/.: the tree's contents, onto an earlier copy.
	checkErr(t, cmdtest.Exec(NewCmdFiles(f), "cp", "-r", local+"/.", s.id+":copied"), "", "")

	if got := s.names(t, "w"); got != "file.txt up.txt" {
		t.Errorf("w/ holds %q", got)
	}
	if got := s.names(t, "copied") + " | " + s.names(t, "copied/a"); got != "a one.txt | deep.txt" {
		t.Errorf("copied/ holds %q", got)
	}
	for p, want := range map[string]string{"w/file.txt": "new\n", "w/up.txt": "one\n", "copied/one.txt": "one\n", "copied/a/deep.txt": "deep\n"} {
		if got, _ := s.get(t, p); got != want {
			t.Errorf("%s holds %q, want %q", p, got, want)
		}
	}
}

// A write that fails names the path given, never the temporary one, and
// leaves nothing behind.
func TestWriteOntoADirectoryFails(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "dir/inside.txt", "x")
	f, io := s.factory(t, false, "")
	io.In.WriteString("data")
	err := cmdtest.Exec(NewCmdFiles(f), "write", s.id, "dir")
	if err == nil || strings.Contains(err.Error(), ".abx-") || !strings.Contains(err.Error(), "dir") {
		t.Errorf("error %v", err)
	}
	if got := s.names(t, ""); got != "dir" {
		t.Errorf("the home holds %q", got)
	}
	if got := s.names(t, "dir"); got != "inside.txt" {
		t.Errorf("dir/ holds %q", got)
	}
}
