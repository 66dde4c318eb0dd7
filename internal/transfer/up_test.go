package transfer

import (
	"context"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/interrupt"
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
	if want := (Result{Files: 1, Local: local, Remote: "up/one.txt"}); !reflect.DeepEqual(res, want) {
		t.Errorf("result %+v, want %+v", res, want)
	}
	if r.files["up/one.txt"] != "one\n" {
		t.Errorf("remote files %q", r.files)
	}
}

// A tree goes to a path that is not there as that path, and into a
// directory that is there under its own name; DIR/. merges DIR's contents
// into it, as docker cp does.
func TestCopyUpATree(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.dirs = []string{"copied"} // an existing directory
	local := filepath.Join(t.TempDir(), "tree")
	transfertest.WriteTree(t, local, map[string]string{"one.txt": "one\n", "a/b/deep.txt": "deep\n", "a/empty.txt": ""}, "empty-dir")
	c := &Copier{Remote: r}
	ctx := context.Background()
	if _, err := c.CopyUp(ctx, local, "copied", false); codeOf(t, err) != abxerr.InvalidInput {
		t.Errorf("a directory without recursive: %v, want E1002", err)
	}
	tree := func(at string) map[string]string {
		return map[string]string{at + "/one.txt": "one\n", at + "/a/b/deep.txt": "deep\n", at + "/a/empty.txt": ""}
	}
	for _, tc := range []struct {
		local, remote, at string
	}{
		{local, "fresh", "fresh"},
		{local, "copied", "copied/tree"},
		{local, "new/", "new"},
		{local + string(filepath.Separator) + ".", "copied", "copied"},
	} {
		r.files = map[string]string{}
		res, err := c.CopyUp(ctx, tc.local, tc.remote, true)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Tree || res.Files != 3 || strings.TrimSuffix(res.Remote, "/") != tc.at {
			t.Errorf("%s to %s: result %+v, want a tree of 3 files at %s", tc.local, tc.remote, res, tc.at)
		}
		if want := tree(tc.at); !reflect.DeepEqual(r.files, want) {
			t.Errorf("%s to %s: remote files %q, want %q", tc.local, tc.remote, r.files, want)
		}
		if !slices.Contains(r.dirs, tc.at+"/empty-dir") {
			t.Errorf("%s to %s: remote directories %q", tc.local, tc.remote, r.dirs)
		}
	}
}

// Put writes beside the destination and renames: the destination is never
// half written, and no temporary file is left, whether the upload worked,
// failed or was interrupted.
func TestPutReplacesWhole(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.files["dir/out.txt"] = "old\n"
	if err := Put(t.Context(), r, "dir/out.txt", strings.NewReader("new\n")); err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"dir/out.txt": "new\n"}; !reflect.DeepEqual(r.files, want) {
		t.Errorf("remote files %q, want %q", r.files, want)
	}
}

func TestPutInterruptedLeavesTheDestinationAsItWas(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.files["/home/user/out.txt"] = "old\n"
	// Some bytes, then a stdin that says nothing more.
	pr, pw := io.Pipe()
	defer func() { _ = pw.Close() }()
	read := make(chan struct{})
	go func() { _, _ = pw.Write([]byte("half of it")); close(read) }()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- Put(ctx, r, "/home/user/out.txt", interrupt.Reader(ctx, pr)) }()
	<-read // the fake keeps these bytes under the temporary name
	cancel()
	select {
	case err := <-done:
		if codeOf(t, err) != abxerr.Interrupted {
			t.Errorf("error %v, want E7001", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("Put did not stop when interrupted")
	}
	if want := map[string]string{"/home/user/out.txt": "old\n"}; !reflect.DeepEqual(r.files, want) {
		t.Errorf("remote files %q, want %q", r.files, want)
	}
}

// failingRemote refuses the upload the way envd does, naming the path it
// was given.
type failingRemote struct{ *fakeRemote }

func (failingRemote) Write(_ context.Context, p string, _ io.Reader) error {
	return abxerr.New(abxerr.PermissionDenied, "%s: permission denied", p)
}

func TestPutErrorsNameTheDestination(t *testing.T) {
	t.Parallel()
	r := failingRemote{newFakeRemote()}
	r.dirs = []string{"/etc"}
	err := Put(t.Context(), r, "/etc/passwd", strings.NewReader("x"))
	if e := abxerr.From(err); e == nil || e.Code != abxerr.PermissionDenied || e.Message != "/etc/passwd: permission denied" {
		t.Errorf("error %v", err)
	}
	if len(r.paths()) != 0 {
		t.Errorf("remote files %q", r.files)
	}
}

func TestTempNameStaysBesideAndShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ remote, prefix string }{
		{"out.txt", ".out.txt.abx-"},
		{"dir/sub/out.txt", "dir/sub/.out.txt.abx-"},
		{"/abs/out", "/abs/.out.abx-"},
		{"~/x", "~/.x.abx-"},
	} {
		got, err := tempName(tc.remote)
		if err != nil || !strings.HasPrefix(got, tc.prefix) || len(got) != len(tc.prefix)+12 {
			t.Errorf("tempName(%q) = %q, %v; want %s and 12 hex digits", tc.remote, got, err, tc.prefix)
		}
	}
	a, _ := tempName("x")
	b, _ := tempName("x")
	if a == b {
		t.Errorf("two temporary names alike: %q", a)
	}
	// A name near the limit is cut, at a character's start.
	long := strings.Repeat("é", 127) // 254 bytes
	got, _ := tempName("d/" + long)
	base := got[len("d/"):]
	if len(base) > 255 || !strings.HasPrefix(base, "."+strings.Repeat("é", maxTempBase/2)+".abx-") {
		t.Errorf("tempName of a long name = %q (%d bytes)", base, len(base))
	}
}
