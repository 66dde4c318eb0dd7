package transfer

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

const root = "/home/user/out"

// treeRemote is a sandbox holding root/one.txt and root/a/b/deep.txt, with
// an empty directory root/empty.
func treeRemote() *fakeRemote {
	r := newFakeRemote()
	r.stat[root] = envd.Entry{Name: "out", Path: root, Type: "dir"}
	r.files[root+"/one.txt"] = "one\n"
	r.files[root+"/a/b/deep.txt"] = "deep\n"
	r.listing[root] = []envd.Entry{
		{Name: "a", Path: root + "/a", Type: "dir"},
		{Name: "b", Path: root + "/a/b", Type: "dir"},
		{Name: "deep.txt", Path: root + "/a/b/deep.txt", Type: "file"},
		{Name: "empty", Path: root + "/empty", Type: "dir"},
		{Name: "one.txt", Path: root + "/one.txt", Type: "file"},
	}
	return r
}

func TestCopyDownAFile(t *testing.T) {
	t.Parallel()
	r := treeRemote()
	dir := t.TempDir()
	c := &Copier{Remote: r, Sandbox: "sb-1"}
	ctx := context.Background()
	res, err := c.CopyDown(ctx, root+"/one.txt", filepath.Join(dir, "renamed.txt"), false)
	if want := (Result{Files: 1, Local: filepath.Join(dir, "renamed.txt"), Remote: root + "/one.txt"}); err != nil || !reflect.DeepEqual(res, want) {
		t.Errorf("to a file: %+v, %v", res, err)
	}
	// Into an existing directory, under the file's own name.
	res, err = c.CopyDown(ctx, root+"/one.txt", dir, false)
	if err != nil || res.Local != filepath.Join(dir, "one.txt") {
		t.Errorf("into a directory: %+v, %v", res, err)
	}
	transfertest.WantTree(t, dir, map[string]string{"renamed.txt": "one\n", "one.txt": "one\n"})
}

func TestCopyDownATree(t *testing.T) {
	t.Parallel()
	r := treeRemote()
	dest := filepath.Join(t.TempDir(), "again")
	c := &Copier{Remote: r, Sandbox: "sb-1"}
	ctx := context.Background()
	_, err := c.CopyDown(ctx, root, dest, false)
	if codeOf(t, err) != abxerr.InvalidInput || !strings.Contains(err.Error(), "sb-1:"+root+" is a directory") {
		t.Errorf("a directory without recursive: %v", err)
	}
	if _, serr := os.Stat(dest); serr == nil {
		t.Error("a refused copy created the destination")
	}
	res, err := c.CopyDown(ctx, root, dest, true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Tree || res.Files != 2 || res.Local != dest || len(res.Skipped) != 0 {
		t.Errorf("result %+v, want a tree of 2 files", res)
	}
	transfertest.WantTree(t, dest, map[string]string{"a": "/", "a/b": "/", "a/b/deep.txt": "deep\n", "empty": "/", "one.txt": "one\n"})
}

func TestCopyDownSkipsSymlinks(t *testing.T) {
	t.Parallel()
	r := treeRemote()
	r.files["/etc/passwd"] = "root:x:0:0\n"
	r.listing[root] = append(r.listing[root], envd.Entry{Name: "link", Path: root + "/link", Type: "symlink", SymlinkTarget: "/etc/passwd"})
	dest := filepath.Join(t.TempDir(), "dest")
	res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, dest, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || !reflect.DeepEqual(skippedPaths(res), []string{"sb-1:" + root + "/link"}) {
		t.Errorf("result %+v, want 2 files and the link skipped", res)
	}
	if _, err := os.Lstat(filepath.Join(dest, "link")); err == nil {
		t.Error("the link was copied")
	}
}
