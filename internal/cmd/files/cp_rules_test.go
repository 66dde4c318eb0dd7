//go:build unix

package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// Where a copy lands follows cp, scp and docker cp: a destination that is
// a directory, or ends in /, receives the file or the tree under its own
// name, and the note says where it went.
func TestRunCpLandsAsCpDoes(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	s.put(t, "dir/keep.txt", "keep\n")
	local := t.TempDir()
	transfertest.WriteTree(t, local, map[string]string{"f.txt": "f\n", "tree/one.txt": "one\n", "tree/sub/two.txt": "two\n"})
	file, tree := filepath.Join(local, "f.txt"), filepath.Join(local, "tree")
	for _, tc := range []struct {
		argv []string
		note string            // after "copied "
		want map[string]string // files of the sandbox's home it made
	}{
		{[]string{file, s.id + ":dir/"}, file + " to " + s.id + ":dir/f.txt", map[string]string{"dir/f.txt": "f\n"}},
		{[]string{file, s.id + ":dir"}, file + " to " + s.id + ":dir/f.txt", map[string]string{"dir/f.txt": "f\n"}},
		{[]string{file, s.id + ":."}, file + " to " + s.id + ":f.txt", map[string]string{"f.txt": "f\n"}},
		{[]string{file, s.id + ":/tmp"}, file + " to " + s.id + ":/tmp/f.txt", nil},
		{[]string{file, s.id + ":made/"}, file + " to " + s.id + ":made/f.txt", map[string]string{"made/f.txt": "f\n"}},
		{[]string{"-r", tree, s.id + ":dir"}, "2 files from " + tree + " to " + s.id + ":dir/tree",
			map[string]string{"dir/tree/one.txt": "one\n", "dir/tree/sub/two.txt": "two\n"}},
		{[]string{"-r", tree, s.id + ":fresh"}, "2 files from " + tree + " to " + s.id + ":fresh",
			map[string]string{"fresh/one.txt": "one\n", "fresh/sub/two.txt": "two\n"}},
		{[]string{"-r", tree + "/.", s.id + ":dir"}, "2 files from " + tree + "/. to " + s.id + ":dir",
			map[string]string{"dir/one.txt": "one\n", "dir/sub/two.txt": "two\n"}},
	} {
		io, err := s.run(t, false, "", append([]string{"cp"}, tc.argv...)...)
		checkErr(t, err, "", "")
		wantOutput(t, io, "", "copied "+tc.note+"\n")
		for p, want := range tc.want {
			if got, _ := s.get(t, p); got != want {
				t.Errorf("cp %s: %s holds %q", strings.Join(tc.argv, " "), p, got)
			}
		}
	}
	if got, _ := s.get(t, "dir/keep.txt"); got != "keep\n" {
		t.Errorf("dir/keep.txt holds %q", got)
	}

	// Down: a tree into an existing directory becomes a directory of its
	// name; a file goes in under its own.
	down := t.TempDir()
	io, err := s.run(t, false, "", "cp", "-r", s.id+":dir/tree", down)
	checkErr(t, err, "", "")
	wantOutput(t, io, "", "copied 2 files from "+s.id+":dir/tree to "+filepath.Join(down, "tree")+"\n")
	_, err = s.run(t, false, "", "cp", s.id+":dir/f.txt", down+"/")
	checkErr(t, err, "", "")
	transfertest.WantTree(t, down, map[string]string{"tree": "/", "tree/one.txt": "one\n", "tree/sub": "/", "tree/sub/two.txt": "two\n", "f.txt": "f\n"})
}

// An upload keeps the links that stay inside the tree as links, made by
// the sandbox, and leaves out, with a note, those that lead out of it:
// nothing outside the tree is read, and a link to a directory ends
// nothing half way.
func TestRunCpUploadsLinksAsLinks(t *testing.T) {
	t.Parallel()
	s := newFakeSandbox(t)
	base := t.TempDir()
	tree := filepath.Join(base, "t")
	transfertest.WriteTree(t, base, map[string]string{"shadow": "SECRET\n", "t/a.txt": "a\n", "t/sub/b.txt": "b\n", "t/z.txt": "z\n"})
	for name, target := range map[string]string{"alink": "a.txt", "sublink": "sub", "shadowlink": filepath.Join(base, "shadow"), "etcdir": "/etc", "up": "../shadow"} {
		if err := os.Symlink(target, filepath.Join(tree, name)); err != nil {
			t.Fatal(err)
		}
	}
	io, err := s.run(t, false, "", "cp", "-r", tree, s.id+":t")
	checkErr(t, err, "", "")
	for _, want := range []string{
		"skipped " + filepath.Join(tree, "etcdir") + ": a symbolic link to an absolute path\n",
		"skipped " + filepath.Join(tree, "shadowlink") + ": a symbolic link to an absolute path\n",
		"skipped " + filepath.Join(tree, "up") + ": a symbolic link that leads out of the tree\n",
		"copied 3 files and 2 links from " + tree + " to " + s.id + ":t\n",
	} {
		if !strings.Contains(io.ErrOut.String(), want) {
			t.Errorf("stderr %q, want %q", io.ErrOut, want)
		}
	}
	for name, target := range map[string]string{"alink": "a.txt", "sublink": "sub"} {
		if got, err := os.Readlink(filepath.Join(s.home, "t", name)); err != nil || got != target {
			t.Errorf("t/%s: %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"shadowlink", "etcdir", "up"} {
		if _, err := os.Lstat(filepath.Join(s.home, "t", name)); err == nil {
			t.Errorf("t/%s was copied", name)
		}
	}
	if got, _ := s.get(t, "t/z.txt"); got != "z\n" {
		t.Errorf("t/z.txt, after the links, holds %q", got)
	}
}
