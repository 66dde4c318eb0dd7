//go:build unix

package files

import (
	"bytes"
	"crypto/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

// cp runs one copy on the fake, on a terminal when tty is set.
func (s *fakeSandbox) cp(t *testing.T, tty bool, format output.Format, opts CpOptions) (cmdtest.Streams, error) {
	t.Helper()
	f, io := s.factory(t, tty, format)
	opts.IO, opts.Printer, opts.Envd, opts.ID = f.IO, f.Printer, f.EnvdClient, s.id
	return io, runCp(t.Context(), &opts)
}

// tree maps every file under dir (slash-separated) to its contents, and
// every directory to "/".
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)] = "/"
			return nil
		}
		body, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
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

	io, err := s.cp(t, true, "", CpOptions{Remote: "up/big.bin", Local: local})
	checkErr(t, err, "", "")
	if got, _ := s.get(t, "up/big.bin"); got != string(big) {
		t.Fatalf("the sandbox holds %d bytes, want %d", len(got), len(big))
	}
	if e := io.ErrOut.String(); !strings.Contains(e, "\rup/big.bin ") || !strings.HasSuffix(e, "\r\x1b[Kcopied "+local+" to "+s.id+":up/big.bin\n") {
		t.Errorf("stderr %q, want the meter, cleared, then the note", e)
	}

	down := filepath.Join(dir, "down.bin")
	io, err = s.cp(t, false, "", CpOptions{Download: true, Remote: "up/big.bin", Local: down})
	checkErr(t, err, "", "")
	if got, _ := os.ReadFile(down); !bytes.Equal(got, big) || io.ErrOut.String() != "copied "+s.id+":up/big.bin to "+down+"\n" {
		t.Errorf("%d bytes down; stderr %q", len(got), io.ErrOut)
	}

	into := filepath.Join(dir, "into")
	if err := os.Mkdir(into, 0o755); err != nil {
		t.Fatal(err)
	}
	io, err = s.cp(t, false, "", CpOptions{Download: true, Remote: "up/big.bin", Local: into})
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
	for p, body := range map[string]string{"one.txt": "one\n", "a/b/deep.txt": "deep\n", "a/empty.txt": ""} {
		full := filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(src, "empty-dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	io, err := s.cp(t, false, "", CpOptions{Remote: "copied", Local: src, Recursive: true})
	checkErr(t, err, "", "")
	if want := "copied 3 files from " + src + " to " + s.id + ":copied\n"; io.ErrOut.String() != want {
		t.Errorf("stderr %q, want %q", io.ErrOut, want)
	}
	if got, want := tree(t, filepath.Join(s.home, "copied")), tree(t, src); !reflect.DeepEqual(got, want) {
		t.Errorf("the sandbox holds %q, want %q", got, want)
	}

	again := filepath.Join(dir, "again")
	io, err = s.cp(t, false, "", CpOptions{Download: true, Remote: "copied", Local: again, Recursive: true})
	checkErr(t, err, "", "")
	if want := "copied 3 files from " + s.id + ":copied to " + again + "\n"; io.ErrOut.String() != want {
		t.Errorf("stderr %q, want %q", io.ErrOut, want)
	}
	if got, want := tree(t, again), tree(t, src); !reflect.DeepEqual(got, want) {
		t.Errorf("copied back %q, want %q", got, want)
	}

	// JSON: the data is the files; nothing is printed.
	io, err = s.cp(t, false, output.JSON, CpOptions{Download: true, Remote: "copied", Local: filepath.Join(dir, "quiet"), Recursive: true})
	checkErr(t, err, "", "")
	if io.Out.Len() != 0 || io.ErrOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", io.Out, io.ErrOut)
	}

	_, err = s.cp(t, false, "", CpOptions{Download: true, Remote: "copied/a", Local: filepath.Join(dir, "down-a")})
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
	io, err := s.cp(t, false, "", CpOptions{Download: true, Remote: "missing.bin", Local: filepath.Join(dir, "partial.bin")})
	checkErr(t, err, abxerr.NotFound, "missing.bin")
	if entries, _ := os.ReadDir(dir); len(entries) != 0 || io.ErrOut.Len() != 0 {
		t.Errorf("left %v; stderr %q", entries, io.ErrOut)
	}
}

// envd from 0.6.2 reports symbolic links as such; a tree download notes
// and skips them.
func TestRunCpSkipsSymlinks(t *testing.T) {
	t.Parallel()
	s := newFakeSandboxVersion(t, "0.6.2")
	s.put(t, "tree/one.txt", "one\n")
	if err := os.Symlink("/etc/passwd", filepath.Join(s.home, "tree", "link")); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "dest")
	io, err := s.cp(t, false, "", CpOptions{Download: true, Remote: "tree", Local: dest, Recursive: true})
	checkErr(t, err, "", "")
	want := "skipped " + s.id + ":" + s.home + "/tree/link: a symbolic link\ncopied 1 files from " + s.id + ":tree to " + dest + "\n"
	if io.ErrOut.String() != want {
		t.Errorf("stderr %q, want %q", io.ErrOut, want)
	}
	if got := tree(t, dest); !reflect.DeepEqual(got, map[string]string{"one.txt": "one\n"}) {
		t.Errorf("copied %q", got)
	}
}
