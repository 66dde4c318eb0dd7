//go:build unix

package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// link makes a symbolic link in the sandbox (name under its home) to
// target, a path as the sandbox sees it.
func (s *fakeSandbox) link(t *testing.T, name, target string) {
	t.Helper()
	p := filepath.Join(s.home, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// Every link in a tree is skipped and named, wherever it leads: out of
// the tree to a file or a directory (envd 0.2.10 calls the latter a
// directory, with its target), back into it, nowhere, or through another
// link. Only the tree's own files arrive.
func TestRunCpSkipsEveryLinkInATree(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0.2.10", "0.6.2"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			s := newFakeSandboxVersion(t, v)
			s.put(t, "tree/one.txt", "one\n")
			s.put(t, "tree/sub/two.txt", "two\n")
			links := [][2]string{
				{"a-etc", "/etc"}, {"b-passwd", "/etc/passwd"}, {"c-up", "../.."}, {"d-inside", "sub"},
				{"e-one", "one.txt"}, {"f-dangling", "missing"}, {"g-chain", "b-passwd"},
			}
			want := ""
			for _, l := range links {
				s.link(t, "tree/"+l[0], l[1])
				want += "skipped " + s.id + ":/home/user/tree/" + l[0] + ": a symbolic link or special file\n"
			}
			dest := filepath.Join(t.TempDir(), "dest")
			io, err := s.run(t, false, "", "cp", s.id+":tree", dest, "-r")
			checkErr(t, err, "", "")
			wantOutput(t, io, "", want+"copied 2 files from "+s.id+":tree to "+dest+"\n")
			transfertest.WantTree(t, dest, map[string]string{"one.txt": "one\n", "sub": "/", "sub/two.txt": "two\n"})
		})
	}
}

// A link named on the command line is followed, as envd follows it: the
// tree or the file it leads to is copied.
func TestRunCpFollowsANamedLink(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "tree/one.txt", "one\n")
	s.put(t, "tree/sub/two.txt", "two\n")
	s.link(t, "tree/link", "/etc")
	s.link(t, "dl", "tree")
	s.link(t, "fl", "tree/one.txt")
	dir := t.TempDir()
	dest := filepath.Join(dir, "dest")
	io, err := s.run(t, false, "", "cp", s.id+":dl", dest, "-r")
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "skipped "+s.id+":/home/user/dl/link: a symbolic link or special file\ncopied 2 files from "+s.id+":dl to "+dest+"\n")
	transfertest.WantTree(t, dest, map[string]string{"one.txt": "one\n", "sub": "/", "sub/two.txt": "two\n"})

	_, err = s.run(t, false, "", "cp", s.id+":fl", filepath.Join(dir, "fl.txt"))
	checkErr(t, err, "", "")
	if b, err := os.ReadFile(filepath.Join(dir, "fl.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("fl.txt: %q, %v", b, err)
	}
}

// A file's name is bytes to copy, escape sequences and all.
func TestRunCpCopiesNamesAsTheyAre(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	name := "\x1b]0;title\x07\x1b[31mred.txt"
	s.put(t, "tree/"+name, "red\n")
	dest := filepath.Join(t.TempDir(), "dest")
	_, err := s.run(t, false, "", "cp", s.id+":tree", dest, "-r")
	checkErr(t, err, "", "")
	transfertest.WantTree(t, dest, map[string]string{name: "red\n"})
}

// A destination that cannot take the copy is a usage error (exit 2), and
// nothing is written: a file into a missing directory, a tree onto a
// file, or into a directory whose link leads out of it.
func TestRunCpRefusesADestinationItCannotFill(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "tree/sub/two.txt", "two\n")
	dir, linked := t.TempDir(), t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"file": "mine\n"})
	transfertest.WriteTree(t, linked, nil, "outside", "dest")
	if err := os.Symlink(filepath.Join(linked, "outside"), filepath.Join(linked, "dest", "sub")); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{s.id + ":tree/sub/two.txt", filepath.Join(dir, "missing", "two.txt")},
		{s.id + ":tree", filepath.Join(dir, "file"), "-r"},
		{s.id + ":tree/.", filepath.Join(linked, "dest"), "-r"}, // the contents, merged into dest
	} {
		_, err := s.run(t, false, "", append([]string{"cp"}, argv...)...)
		if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput || e.ExitCode() != abxerr.ExitUsage {
			t.Errorf("cp %s: %v, want E2xxx", strings.Join(argv, " "), err)
		}
	}
	transfertest.WantTree(t, dir, map[string]string{"file": "mine\n"})
	transfertest.WantTree(t, filepath.Join(linked, "outside"), map[string]string{})
	if entries, err := os.ReadDir(filepath.Join(linked, "dest")); err != nil || len(entries) != 1 {
		t.Errorf("dest holds %v (%v), want the link alone", entries, err)
	}
}
