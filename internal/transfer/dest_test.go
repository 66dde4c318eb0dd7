package transfer

import (
	"context"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// The rule cp, scp, docker cp and kubectl cp share: a destination that is
// a directory, or ends in "/", receives the file under its own name.
func TestCopyUpAFileIntoADirectory(t *testing.T) {
	t.Parallel()
	local := filepath.Join(t.TempDir(), "f.txt")
	transfertest.WriteTree(t, filepath.Dir(local), map[string]string{"f.txt": "f\n"})
	for _, tc := range []struct {
		remote, want string
	}{
		{"dir", "dir/f.txt"},           // an existing directory
		{"dir/", "dir/f.txt"},          // the same, said
		{"newdir/", "newdir/f.txt"},    // not there yet: made, as uploads make parents
		{".", "f.txt"},                 // the home
		{"/tmp", "/tmp/f.txt"},         // an absolute one
		{"dir/g.txt", "dir/g.txt"},     // a file's path
		{"dir/old.txt", "dir/old.txt"}, // a file there: replaced
	} {
		r := newFakeRemote()
		r.dirs = []string{"dir", "/tmp"}
		r.files["dir/old.txt"] = "old\n"
		res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyUp(context.Background(), local, tc.remote, false)
		if err != nil || res.Remote != tc.want || r.files[tc.want] != "f\n" {
			t.Errorf("to %s: %+v, %v; remote files %q; want it at %s", tc.remote, res, err, r.files, tc.want)
		}
	}
}

// A file's path that is a directory, or below a file, takes no upload:
// refused before a byte is sent.
func TestPutRefusesADirectory(t *testing.T) {
	t.Parallel()
	for _, remote := range []string{"dir", "f.txt/x"} {
		r := newCallsRemote(newFakeRemote())
		r.fakeRemote.dirs = []string{"dir"}
		r.files["f.txt"] = "f\n"
		err := Put(context.Background(), r, remote, strings.NewReader("x"))
		if codeOf(t, err) != abxerr.InvalidInput || slices.ContainsFunc(r.calls, func(c string) bool { return strings.HasPrefix(c, "write") }) {
			t.Errorf("%s: %v after %v; want E1002 before any write", remote, err, r.calls)
		}
	}
}

// parentsThenFail is envd making an upload's parents, then failing it
// (the disk full, the connection cut, Ctrl-C).
type parentsThenFail struct{ *fakeRemote }

func (r parentsThenFail) Write(_ context.Context, p string, in io.Reader) error {
	_, _ = io.Copy(io.Discard, in)
	r.mu.Lock()
	r.mkdirAll(path.Dir(p))
	r.mu.Unlock()
	return abxerr.New(abxerr.Server, "%s: no space left on device", p)
}

// An upload that fails leaves no directory it made behind: not the empty
// one a destination ending in "/" asked for, nor the parents of a file's
// path. Directories that were there, and ones another writer filled
// meanwhile, stay.
func TestAFailedUploadLeavesNoDirectoryItMade(t *testing.T) {
	t.Parallel()
	local := filepath.Join(t.TempDir(), "f.txt")
	transfertest.WriteTree(t, filepath.Dir(local), map[string]string{"f.txt": "f\n"})
	for _, remote := range []string{"newdir/", "a/b/c/f.txt", "there/new/f.txt"} {
		r := parentsThenFail{newFakeRemote()}
		r.dirs = []string{"there"}
		_, err := (&Copier{Remote: r}).CopyUp(context.Background(), local, remote, false)
		if codeOf(t, err) != abxerr.Server {
			t.Errorf("%s: %v", remote, err)
		}
		if !reflect.DeepEqual(r.dirs, []string{"there"}) || len(r.files) != 0 {
			t.Errorf("%s: left directories %q and files %q", remote, r.dirs, r.files)
		}
	}
	// A tree that fails before anything of it was copied goes too.
	tree := filepath.Join(t.TempDir(), "tree")
	transfertest.WriteTree(t, tree, map[string]string{"sub/one.txt": "1\n"})
	r := parentsThenFail{newFakeRemote()}
	if _, err := (&Copier{Remote: r}).CopyUp(context.Background(), tree, "up/tree", true); err == nil || len(r.dirs) != 0 {
		t.Errorf("a tree: %v; left directories %q", err, r.dirs)
	}
}

// A tree downloaded into an existing directory becomes a directory of its
// name there, as cp -r and docker cp make it; DIR/. merges its contents.
func TestCopyDownATreeIntoADirectory(t *testing.T) {
	t.Parallel()
	want := map[string]string{"a": "/", "a/b": "/", "a/b/deep.txt": "deep\n", "empty": "/", "one.txt": "one\n"}
	for _, tc := range []struct {
		remote, at string
	}{{root, "out"}, {root + "/", "out"}, {root + "/.", "."}} {
		dest := t.TempDir()
		res, err := (&Copier{Remote: treeRemote(), Sandbox: "sb-1"}).CopyDown(context.Background(), tc.remote, dest, true)
		if err != nil || res.Local != filepath.Join(dest, tc.at) {
			t.Errorf("%s: %+v, %v", tc.remote, res, err)
		}
		transfertest.WantTree(t, filepath.Join(dest, tc.at), want)
	}
	// The tree's name is the sandbox's: one that is not a file name is
	// refused, and nothing is written.
	r := treeRemote()
	r.stat[root] = envd.Entry{Name: "..", Path: root, Type: "dir"}
	dest := t.TempDir()
	if _, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, dest, true); codeOf(t, err) != abxerr.BadResponse {
		t.Errorf("a tree named ..: %v", err)
	}
	transfertest.WantTree(t, dest, map[string]string{})
}

// A file downloaded into a directory, named with or without a trailing
// separator, lands there under its own name; a trailing separator on
// what is not a directory is refused before any request.
func TestCopyDownAFileIntoADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sep := string(filepath.Separator)
	for _, local := range []string{dir, dir + sep} {
		res, err := (&Copier{Remote: treeRemote(), Sandbox: "sb-1"}).CopyDown(context.Background(), root+"/one.txt", local, false)
		if err != nil || res.Local != filepath.Join(dir, "one.txt") {
			t.Errorf("into %s: %+v, %v", local, res, err)
		}
	}
	r := newCallsRemote(treeRemote())
	if _, err := (&Copier{Remote: r}).CopyDown(context.Background(), root+"/one.txt", filepath.Join(dir, "nodir")+sep, false); codeOf(t, err) != abxerr.InvalidInput || len(r.calls) != 0 {
		t.Errorf("into a missing directory: %v after %v", err, r.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, "nodir")); err == nil {
		t.Error("nodir was made")
	}
}

// A tree without a name of its own, "/", goes into an existing directory as
// its contents (there is no name to nest it under), and the Stats end.
func TestTreeDestinationOfTheRoot(t *testing.T) {
	t.Parallel()
	r := newCallsRemote(newFakeRemote())
	r.fakeRemote.dirs = append(r.fakeRemote.dirs, "/home/user/into")
	dest, err := (&Copier{Remote: r}).treeDestination(context.Background(), "/", "/home/user/into")
	if err != nil || dest != "/home/user/into" || len(r.calls) > 2 {
		t.Errorf("dest %q, %v after %v", dest, err, r.calls)
	}
}
