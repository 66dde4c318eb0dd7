//go:build unix

package files

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// envd names a link's target; a tree download notes and skips the link.
func TestRunCpSkipsSymlinks(t *testing.T) {
	t.Parallel()
	s := newFakeSandboxVersion(t, "0.6.2")
	s.put(t, "tree/one.txt", "one\n")
	if err := os.Symlink("/etc/passwd", filepath.Join(s.home, "tree", "link")); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "dest")
	io, err := s.run(t, false, "", "cp", s.id+":tree", dest, "-r")
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "skipped "+s.id+":"+"/home/user/tree/link: a symbolic link or special file\ncopied 1 file from "+s.id+":tree to "+dest+"\n")
	transfertest.WantTree(t, dest, map[string]string{"one.txt": "one\n"})
}

func TestRunCpAFile(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	dir := t.TempDir()
	// Past the meter's 8 MiB threshold, so that the terminal shows it.
	big := make([]byte, 9<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(local, big, 0o644); err != nil {
		t.Fatal(err)
	}

	io, err := s.run(t, true, "", "cp", local, s.id+":up/big.bin")
	checkErr(t, err, "", "")
	if got, _ := s.get(t, "up/big.bin"); got != string(big) {
		t.Fatalf("the sandbox holds %d bytes, want %d", len(got), len(big))
	}
	if e := io.ErrOut.String(); !strings.Contains(e, "\rup/big.bin ") || !strings.HasSuffix(e, "\r\x1b[Kcopied "+local+" to "+s.id+":up/big.bin\n") {
		t.Errorf("stderr %q, want the meter, cleared, then the note", e)
	}

	down := filepath.Join(dir, "down.bin")
	io, err = s.run(t, false, "", "cp", s.id+":up/big.bin", down)
	checkErr(t, err, "", "")
	if got, _ := os.ReadFile(down); !bytes.Equal(got, big) || io.ErrOut.String() != "copied "+s.id+":up/big.bin to "+down+"\n" {
		t.Errorf("%d bytes down; stderr %q", len(got), io.ErrOut)
	}

	into := filepath.Join(dir, "into")
	if err := os.Mkdir(into, 0o755); err != nil {
		t.Fatal(err)
	}
	io, err = s.run(t, false, "", "cp", s.id+":up/big.bin", into)
	checkErr(t, err, "", "")
	if _, err := os.Stat(filepath.Join(into, "big.bin")); err != nil || io.ErrOut.String() != "copied "+s.id+":up/big.bin to "+filepath.Join(into, "big.bin")+"\n" {
		t.Errorf("into a directory: %v; stderr %q", err, io.ErrOut)
	}
}

func TestRunCpATree(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "tree")
	transfertest.WriteTree(t, src, map[string]string{"one.txt": "one\n", "a/b/deep.txt": "deep\n", "a/empty.txt": ""}, "empty-dir")

	io, err := s.run(t, false, "", "cp", src, s.id+":copied", "-r")
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "copied 3 files from "+src+" to "+s.id+":copied\n")
	transfertest.WantTree(t, filepath.Join(s.home, "copied"), transfertest.Tree(t, src))

	again := filepath.Join(dir, "again")
	io, err = s.run(t, false, "", "cp", s.id+":copied", again, "-r")
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "copied 3 files from "+s.id+":copied to "+again+"\n")
	transfertest.WantTree(t, again, transfertest.Tree(t, src))

	// JSON: the data is the files; nothing is printed.
	io, err = s.run(t, false, output.JSON, "cp", s.id+":copied", filepath.Join(dir, "quiet"), "-r")
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "")

	_, err = s.run(t, false, "", "cp", s.id+":copied/a", filepath.Join(dir, "down-a"))
	if checkErr(t, err, abxerr.InvalidInput, s.id+":copied/a is a directory"); abxerr.From(err).Hint != "add -r to copy directories" {
		t.Errorf("hint %q", abxerr.From(err).Hint)
	}
	if _, err := os.Stat(filepath.Join(dir, "down-a")); err == nil {
		t.Error("down-a was created")
	}
}

func TestRunCpFailedDownloadLeavesNothing(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	dir := t.TempDir()
	io, err := s.run(t, false, "", "cp", s.id+":missing.bin", filepath.Join(dir, "partial.bin"))
	checkErr(t, err, abxerr.NotFound, "missing.bin")
	wantOutput(t, io, "", "")
	transfertest.WantTree(t, dir, map[string]string{})
}

// Names are bytes: a tree whose names hold controls and quotes goes up
// whole and comes back the same.
func TestRunCpNamesAreBytes(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "odd")
	names := map[string]string{"a\nb": "newline\n", "esc\x1b[31m": "escape\n", "cr\r": "return\n", "ünï": "utf-8\n", `q"b\s`: "quotes\n", "sub/tab\there": "tab\n"}
	transfertest.WriteTree(t, src, names)
	io, err := s.run(t, false, "", "cp", "-r", src, s.id+":odd")
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "copied 6 files from "+src+" to "+s.id+":odd\n")
	transfertest.WantTree(t, filepath.Join(s.home, "odd"), transfertest.Tree(t, src))
	back := filepath.Join(dir, "back")
	_, err = s.run(t, false, "", "cp", "-r", s.id+":odd", back)
	checkErr(t, err, "", "")
	transfertest.WantTree(t, back, transfertest.Tree(t, src))
}
