package transfer

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// callsRemote is a fakeRemote that records every call, and answers a
// download of one of dirs as envd answers a directory's: 400.
type callsRemote struct {
	*fakeRemote
	dirs  map[string]bool
	mu    sync.Mutex
	calls []string
}

func newCallsRemote(r *fakeRemote) *callsRemote {
	return &callsRemote{fakeRemote: r, dirs: map[string]bool{}}
}

func (r *callsRemote) record(call string) {
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.mu.Unlock()
}

func (r *callsRemote) Stat(ctx context.Context, p string) (envd.Entry, error) {
	r.record("stat " + p)
	return r.fakeRemote.Stat(ctx, p)
}

func (r *callsRemote) ListDir(ctx context.Context, p string, depth int) ([]envd.Entry, error) {
	r.record("ls " + p)
	return r.fakeRemote.ListDir(ctx, p, depth)
}

func (r *callsRemote) Read(ctx context.Context, p string, w io.Writer) (int64, error) {
	r.record("read " + p)
	if r.dirs[p] {
		return 0, abxerr.FromHTTP(400, "path '"+p+"' is a directory")
	}
	return r.fakeRemote.Read(ctx, p, w)
}

func (r *callsRemote) Write(ctx context.Context, p string, in io.Reader) error {
	r.record("write " + p)
	return r.fakeRemote.Write(ctx, p, in)
}

func (r *callsRemote) MakeDir(ctx context.Context, p string) (envd.Entry, error) {
	r.record("mkdir " + p)
	return r.fakeRemote.MakeDir(ctx, p)
}

// reads are the paths downloaded, in order.
func (r *callsRemote) reads() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, c := range r.calls {
		if p, ok := strings.CutPrefix(c, "read "); ok {
			out = append(out, p)
		}
	}
	return out
}

// envd describes a link by what it leads to: type file or dir, and the
// target in symlink_target; 0.2.10 gives a link it cannot resolve no
// target, but its permissions start with L. Each is skipped and named,
// and never read: what a link leads to may lie outside the tree.
func TestCopyDownSkipsLinksAsEnvdDescribesThem(t *testing.T) {
	t.Parallel()
	r := newCallsRemote(treeRemote())
	r.files["/etc/passwd"] = "root:x:0:0\n"
	r.files[root+"/tofile"] = "root:x:0:0\n" // what a download would get: the target's bytes
	links := []envd.Entry{
		{Name: "tofile", Path: root + "/tofile", Type: "file", Permissions: "Lrwxrwxrwx", SymlinkTarget: "/etc/passwd"},
		{Name: "todir", Path: root + "/todir", Type: "dir", Permissions: "Lrwxrwxrwx", SymlinkTarget: "/etc"},
		{Name: "dangling", Path: root + "/dangling", Type: "unknown", Permissions: "Lrwxrwxrwx"},
		{Name: "typed", Path: root + "/typed", Type: "symlink"},
		{Name: "fifo", Path: root + "/fifo", Type: "unknown", Permissions: "prw-r--r--"},
	}
	r.listing[root] = append(r.listing[root], links...)
	dest := filepath.Join(t.TempDir(), "dest")
	res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, dest, true)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range links {
		want = append(want, "sb-1:"+l.Path)
	}
	if res.Files != 2 || !reflect.DeepEqual(skippedPaths(res), want) {
		t.Errorf("result %+v, want 2 files and %v skipped", res, want)
	}
	if reads := r.reads(); !reflect.DeepEqual(reads, []string{root + "/a/b/deep.txt", root + "/one.txt"}) {
		t.Errorf("downloaded %v", reads)
	}
	transfertest.WantTree(t, dest, map[string]string{"a": "/", "a/b": "/", "a/b/deep.txt": "deep\n", "empty": "/", "one.txt": "one\n"})
}

// A listing that calls a link to a directory a file, with nothing to tell
// it is a link, meets a 400 when it is fetched: that entry is skipped and
// named, and the copy goes on.
func TestCopyDownSkipsAFileThatIsADirectory(t *testing.T) {
	t.Parallel()
	r := newCallsRemote(treeRemote())
	r.listing[root] = append([]envd.Entry{{Name: "dirlink", Path: root + "/a/dirlink", Type: "file"}}, r.listing[root]...)
	r.dirs[root+"/a/dirlink"] = true
	dest := filepath.Join(t.TempDir(), "dest")
	res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, dest, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || !reflect.DeepEqual(skippedPaths(res), []string{"sb-1:" + root + "/a/dirlink"}) {
		t.Errorf("result %+v, want 2 files and the directory skipped", res)
	}
	// No temporary file is left where it was to land.
	transfertest.WantTree(t, dest, map[string]string{"a": "/", "a/b": "/", "a/b/deep.txt": "deep\n", "empty": "/", "one.txt": "one\n"})
}

// A listing that puts two entries in one place, or an entry below a file
// or a link, cannot be written as listed: it is refused whole before any
// download, and nothing is written.
func TestCopyDownRefusesListingsThatCollide(t *testing.T) {
	t.Parallel()
	cases := map[string][]envd.Entry{
		"a file and a directory": {
			{Name: "x", Path: root + "/x", Type: "file"},
			{Name: "x", Path: root + "/x", Type: "dir"},
		},
		"a directory then a file": {
			{Name: "x", Path: root + "/x", Type: "dir"},
			{Name: "x", Path: root + "/x", Type: "file"},
		},
		"one file twice": {
			{Name: "x", Path: root + "/x", Type: "file"},
			{Name: "x", Path: root + "/x", Type: "file"},
		},
		"below a file": {
			{Name: "x", Path: root + "/x", Type: "file"},
			{Name: "y", Path: root + "/x/y", Type: "file"},
		},
		"below a file listed later": {
			{Name: "y", Path: root + "/x/sub/y", Type: "file"},
			{Name: "x", Path: root + "/x", Type: "file"},
		},
		"below a link": {
			{Name: "x", Path: root + "/x", Type: "dir", SymlinkTarget: "/etc"},
			{Name: "passwd", Path: root + "/x/passwd", Type: "file"},
		},
		"a name that is not the path's": {
			{Name: "x", Path: root + "/y", Type: "file"},
		},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newCallsRemote(treeRemote())
			for _, e := range entries {
				r.files[e.Path] = "evil\n"
			}
			r.listing[root] = append(r.listing[root], entries...)
			base := t.TempDir()
			_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, filepath.Join(base, "dest"), true)
			if codeOf(t, err) != abxerr.BadResponse {
				t.Fatalf("error %v, want E5004", err)
			}
			if reads := r.reads(); len(reads) != 0 {
				t.Errorf("downloaded %v", reads)
			}
			transfertest.WantTree(t, base, map[string]string{})
		})
	}
}

// What a bad listing makes abx do is ask for it and stop: no download,
// no upload, nothing made in the sandbox or here.
func TestCopyDownAsksNothingMoreOfABadListing(t *testing.T) {
	t.Parallel()
	for _, bad := range []envd.Entry{
		{Name: "", Path: root + "/", Type: "file"},
		{Name: ".", Path: root + "/.", Type: "dir"},
		{Name: "", Path: "", Type: "file"},
	} {
		r := newCallsRemote(treeRemote())
		r.listing[root] = append(r.listing[root], bad)
		base := t.TempDir()
		_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, filepath.Join(base, "dest"), true)
		if codeOf(t, err) != abxerr.BadResponse || abxerr.From(err).ExitCode() != abxerr.ExitFailure {
			t.Errorf("%+v: error %v, want E5004 and exit 1", bad, err)
		}
		if want := []string{"stat " + root, "ls " + root}; !reflect.DeepEqual(r.calls, want) {
			t.Errorf("%+v: calls %v, want %v", bad, r.calls, want)
		}
		transfertest.WantTree(t, base, map[string]string{})
	}
}

// A destination that cannot take the copy is the user's to fix: said
// (exit 2) before any request when it can be told without one, before
// anything is written otherwise.
func TestCopyDownChecksTheDestinationFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("a file into a missing directory", func(t *testing.T) {
		t.Parallel()
		r := newCallsRemote(treeRemote())
		base := t.TempDir()
		_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(ctx, root+"/one.txt", filepath.Join(base, "missing", "one.txt"), false)
		if codeOf(t, err) != abxerr.InvalidInput || len(r.calls) != 0 {
			t.Errorf("error %v after %v; want E2xxx before any request", err, r.calls)
		}
	})
	t.Run("a tree onto a file", func(t *testing.T) {
		t.Parallel()
		r := newCallsRemote(treeRemote())
		base := t.TempDir()
		transfertest.WriteTree(t, base, map[string]string{"dest": "mine\n"})
		_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(ctx, root, filepath.Join(base, "dest"), true)
		if codeOf(t, err) != abxerr.InvalidInput || !reflect.DeepEqual(r.calls, []string{"stat " + root}) {
			t.Errorf("error %v after %v; want E2xxx after the stat alone", err, r.calls)
		}
		transfertest.WantTree(t, base, map[string]string{"dest": "mine\n"})
	})
	for name, mine := range map[string]map[string]string{
		"a file where a directory goes": {"one.txt": "mine\n", "a": "a file\n"},
		"a directory where a file goes": {"one.txt/keep": "mine\n"},
		"a file above a directory":      {"a/b": "a file\n"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newCallsRemote(treeRemote())
			dest := t.TempDir()
			transfertest.WriteTree(t, dest, mine)
			before := transfertest.Tree(t, dest)
			// DIR/.: the tree's contents, merged into dest.
			_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(ctx, root+"/.", dest, true)
			if codeOf(t, err) != abxerr.InvalidInput || len(r.reads()) != 0 {
				t.Errorf("error %v after %v; want E2xxx before any download", err, r.calls)
			}
			transfertest.WantTree(t, dest, before)
		})
	}
}

// Entries are resolved against the destination: a symbolic link in it
// that leads out of it is not written through (refused before anything is
// written), while one that stays inside is.
func TestCopyDownWritesNothingThroughALinkOutOfTheDestination(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need rights on Windows")
	}
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	dest := filepath.Join(base, "dest")
	transfertest.WriteTree(t, base, nil, "outside", "dest/inside")
	if err := os.Symlink(outside, filepath.Join(dest, "a")); err != nil {
		t.Fatal(err)
	}
	r := newCallsRemote(treeRemote())
	_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root+"/.", dest, true)
	if codeOf(t, err) != abxerr.InvalidInput || len(r.reads()) != 0 {
		t.Errorf("error %v after %v; want E2xxx before any download", err, r.calls)
	}
	transfertest.WantTree(t, outside, map[string]string{})

	// A link that stays inside the destination is a directory like any.
	if err := os.Remove(filepath.Join(dest, "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inside", filepath.Join(dest, "a")); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root+"/.", dest, true); err != nil {
		t.Fatal(err)
	}
	transfertest.WantTree(t, filepath.Join(dest, "inside"), map[string]string{"b": "/", "b/deep.txt": "deep\n"})
	transfertest.WantTree(t, outside, map[string]string{})
}

// A link made in the destination after the check (a race with another
// program) still leads nothing out: the file is written against the
// destination, or not at all.
func TestWriteInRefusesALinkOut(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need rights on Windows")
	}
	base := t.TempDir()
	transfertest.WriteTree(t, base, nil, "outside", "dest")
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(base, "dest", "a")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(filepath.Join(base, "dest"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = root.Close() }()
	err = writeIn(root, filepath.Join("a", "x"), "dest/a/x", Keep, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if codeOf(t, err) != abxerr.InvalidInput {
		t.Errorf("error %v, want E2xxx", err)
	}
	transfertest.WantTree(t, filepath.Join(base, "outside"), map[string]string{})
	if names, _ := os.ReadDir(filepath.Join(base, "dest")); len(names) != 1 || slices.ContainsFunc(names, func(e os.DirEntry) bool { return e.Name() != "a" }) {
		t.Errorf("dest holds %v", names)
	}
}
