package transfer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// A sandbox is not trusted to choose where files land on this machine:
// a listing with one entry that is not strictly inside the directory asked
// for is refused whole, before anything is written.
func TestCopyDownRefusesListingsThatLeadOutside(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		entry envd.Entry
	}{
		{"dot-dot out of the root", envd.Entry{Name: "evil.txt", Path: root + "/../evil.txt", Type: "file"}},
		{"dot-dot far out", envd.Entry{Name: "evil.txt", Path: root + "/a/../../../../tmp/evil.txt", Type: "file"}},
		{"dot-dot back inside", envd.Entry{Name: "one.txt", Path: root + "/a/../one.txt", Type: "file"}},
		{"absolute path elsewhere", envd.Entry{Name: "evil.txt", Path: "/etc/evil.txt", Type: "file"}},
		{"sibling sharing the root's prefix", envd.Entry{Name: "evil.txt", Path: root + "side/evil.txt", Type: "file"}},
		{"relative path", envd.Entry{Name: "evil.txt", Path: "evil.txt", Type: "file"}},
		{"the root itself", envd.Entry{Name: "out", Path: root, Type: "dir"}},
		{"empty path", envd.Entry{Name: "evil.txt", Path: "", Type: "file"}},
		{"empty name", envd.Entry{Name: "", Path: root + "/evil.txt", Type: "file"}},
		{"dot name", envd.Entry{Name: ".", Path: root + "/.", Type: "dir"}},
		{"dot-dot name", envd.Entry{Name: "..", Path: root + "/..", Type: "dir"}},
		{"name with a slash", envd.Entry{Name: "../evil.txt", Path: root + "/evil.txt", Type: "file"}},
		{"NUL in the path", envd.Entry{Name: "evil\x00.txt", Path: root + "/evil\x00.txt", Type: "file"}},
		{"symlink outside", envd.Entry{Name: "passwd", Path: "/etc/passwd", Type: "symlink"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := treeRemote()
			r.files[tc.entry.Path] = "evil\n"
			// A good entry first: nothing of it may be written either.
			r.listing[root] = append(r.listing[root], tc.entry)
			base := t.TempDir()
			dest := filepath.Join(base, "in", "dest")
			res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), root, dest, true)
			if codeOf(t, err) != abxerr.BadResponse {
				t.Fatalf("error %v, want E5004", err)
			}
			if !strings.Contains(err.Error(), "not a path inside it") || res.Files != 0 {
				t.Errorf("error %q, result %+v", err, res)
			}
			transfertest.WantTree(t, base, map[string]string{})
		})
	}
}

func TestCopyDownRefusesAFileNameThatLeadsOutside(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", ".", "..", "../evil.txt", "a/b", "/etc/evil.txt"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newFakeRemote()
			r.files["/x"] = "evil\n"
			r.stat["/x"] = envd.Entry{Name: name, Path: "/x", Type: "file"}
			base := t.TempDir()
			transfertest.WriteTree(t, base, nil, "into")
			into := filepath.Join(base, "into")
			_, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), "/x", into, false)
			if codeOf(t, err) != abxerr.BadResponse {
				t.Fatalf("error %v, want E5004", err)
			}
			transfertest.WantTree(t, base, map[string]string{"into": "/"})
		})
	}
}

// A root of "/" lists absolute paths, each inside it.
func TestCopyDownFromTheRootDirectory(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.stat["/"] = envd.Entry{Name: "/", Path: "/", Type: "dir"}
	r.files["/etc/hostname"] = "sandbox\n"
	r.listing["/"] = []envd.Entry{{Name: "etc", Path: "/etc", Type: "dir"}, {Name: "hostname", Path: "/etc/hostname", Type: "file"}}
	dest := t.TempDir()
	if _, err := (&Copier{Remote: r}).CopyDown(context.Background(), "/", dest, true); err != nil {
		t.Fatal(err)
	}
	transfertest.WantTree(t, dest, map[string]string{"etc": "/", "etc/hostname": "sandbox\n"})
}
