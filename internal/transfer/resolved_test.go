package transfer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// Some envd versions walk the directory a path resolves to through links,
// and name the entries under it: the copy takes them, for a directory that
// is itself a link (its target known) and for one below a link (the
// directory of the same name the entries share).
func TestCopyDownAListingUnderTheResolvedPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		asked  envd.Entry
		listed string
	}{
		{"the directory is a link", envd.Entry{Name: "link", Path: "/home/user/link", Type: "dir", SymlinkTarget: "/data/real"}, "/data/real"},
		{"a link above it", envd.Entry{Name: "sub", Path: "/home/user/link/sub", Type: "dir"}, "/data/sub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newFakeRemote()
			r.stat[tc.asked.Path] = tc.asked
			r.files[tc.listed+"/a/f.txt"] = "f\n"
			r.listing[tc.asked.Path] = []envd.Entry{
				{Name: "a", Path: tc.listed + "/a", Type: "dir"},
				{Name: "f.txt", Path: tc.listed + "/a/f.txt", Type: "file"},
			}
			base := t.TempDir()
			dest := filepath.Join(base, "out")
			res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), tc.asked.Path, dest, true)
			if err != nil || res.Files != 1 {
				t.Fatalf("%+v, %v", res, err)
			}
			transfertest.WantTree(t, base, map[string]string{"out": "/", "out/a": "/", "out/a/f.txt": "f\n"})
		})
	}

	// A listing that mixes places is still refused whole.
	r := newFakeRemote()
	r.stat["/home/user/sub"] = envd.Entry{Name: "sub", Path: "/home/user/sub", Type: "dir"}
	r.files["/data/sub/f.txt"] = "f\n"
	r.listing["/home/user/sub"] = []envd.Entry{
		{Name: "f.txt", Path: "/data/sub/f.txt", Type: "file"},
		{Name: "passwd", Path: "/etc/passwd", Type: "file"},
	}
	base := t.TempDir()
	_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), "/home/user/sub", filepath.Join(base, "out"), true)
	if abxerr.From(err).Code != abxerr.BadResponse {
		t.Errorf("mixed listing: %v", err)
	}
	transfertest.WantTree(t, base, map[string]string{})
}
