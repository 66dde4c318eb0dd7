package transfer

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

func TestCopyUpAFile(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	local := filepath.Join(t.TempDir(), "one.txt")
	transfertest.WriteTree(t, filepath.Dir(local), map[string]string{"one.txt": "one\n"})
	res, err := (&Copier{Remote: r}).CopyUp(context.Background(), local, "up/one.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Files: 1, Local: local}); !reflect.DeepEqual(res, want) {
		t.Errorf("result %+v, want %+v", res, want)
	}
	if r.files["up/one.txt"] != "one\n" {
		t.Errorf("remote files %q", r.files)
	}
}

func TestCopyUpATree(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.dirs = []string{"copied"} // an earlier copy: its directories exist
	local := t.TempDir()
	transfertest.WriteTree(t, local, map[string]string{"one.txt": "one\n", "a/b/deep.txt": "deep\n", "a/empty.txt": ""}, "empty-dir")
	c := &Copier{Remote: r}
	ctx := context.Background()
	if _, err := c.CopyUp(ctx, local, "copied", false); codeOf(t, err) != abxerr.InvalidInput {
		t.Errorf("a directory without recursive: %v, want E1002", err)
	}
	res, err := c.CopyUp(ctx, local, "copied", true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Tree || res.Files != 3 {
		t.Errorf("result %+v, want a tree of 3 files", res)
	}
	want := map[string]string{"copied/one.txt": "one\n", "copied/a/b/deep.txt": "deep\n", "copied/a/empty.txt": ""}
	if !reflect.DeepEqual(r.files, want) {
		t.Errorf("remote files %q, want %q", r.files, want)
	}
	wantDirs := []string{"copied", "copied/a", "copied/a/b", "copied/empty-dir"}
	if !reflect.DeepEqual(r.dirs, wantDirs) {
		t.Errorf("remote directories %q, want %q", r.dirs, wantDirs)
	}
}
