package transfer

import (
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/envd"
)

// FuzzPlanDown treats a listing as the hostile input it may be: whatever a
// sandbox names, a tree download writes strictly inside the local
// directory, and an entry it cannot place refuses the whole listing.
func FuzzPlanDown(f *testing.F) {
	f.Add("/home/user/dir", "a.txt", "/home/user/dir/a.txt", "file")
	f.Add("/home/user/dir", "sub", "/home/user/dir/sub", "dir")
	f.Add("/home/user/dir/", "b", "/home/user/dir/sub/b", "file")
	f.Add("/", "etc", "/etc", "dir")
	f.Add("/home/user/dir", "..", "/home/user/dir/..", "dir")
	f.Add("/home/user/dir", "x", "/home/user/dir/../../../etc/passwd", "file")
	f.Add("/home/user/dir", "x", "/home/user/dir2/x", "file")
	f.Add("/home/user/dir", "a/b", "/home/user/dir/a/b", "file")
	f.Add("/home/user/dir", "a\x00b", "/home/user/dir/a\x00b", "file")
	f.Add("/home/user/dir", "", "/home/user/dir/", "file")
	f.Add("/home/user/dir", ".", "/home/user/dir/.", "dir")
	f.Add("/home/user/dir", "l", "/home/user/dir/l", "symlink")
	f.Add("", "a", "a", "file")
	f.Add("dir", "a", "dir/a", "file")
	f.Add("/home/user/dir", `a\..\..\b`, `/home/user/dir/a\..\..\b`, "file")
	f.Fuzz(func(t *testing.T, root, name, entryPath, typ string) {
		entry := envd.Entry{Name: name, Path: entryPath, Type: typ}
		badName := name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00")
		for _, local := range []string{"/tmp/abx-down", "down", "."} {
			steps, skipped, err := planDown(root, local, []envd.Entry{entry})
			checkSteps(t, root, local, steps)
			if badName && (err == nil || len(steps) > 0 || len(skipped) > 0) {
				t.Fatalf("planDown(%q, %q) took the entry named %q: %v, %+v", root, local, name, err, steps)
			}
			if err == nil && typ != "file" && typ != "dir" && len(steps) > 0 {
				t.Fatalf("planDown(%q, %q) plans a %q entry: %+v", root, local, typ, steps)
			}

			// A sound entry first must not be planned when a later one
			// is refused.
			first := envd.Entry{Name: "ok", Path: path.Join(root, "ok"), Type: "file"}
			steps2, _, err2 := planDown(root, local, []envd.Entry{first, entry})
			checkSteps(t, root, local, steps2)
			if err2 != nil && len(steps2) > 0 {
				t.Fatalf("planDown(%q, %q) refused the listing but planned %+v", root, local, steps2)
			}
			if err != nil && err2 == nil {
				t.Fatalf("planDown(%q, %q) refused %+v alone but not after another entry", root, local, entry)
			}
		}
	})
}

func checkSteps(t *testing.T, root, local string, steps []step) {
	t.Helper()
	for _, s := range steps {
		back, err := filepath.Rel(local, s.local)
		if err != nil || back == "." || !filepath.IsLocal(back) {
			t.Fatalf("planDown(%q, %q) writes %q, which is not strictly inside %q (%q, %v)", root, local, s.local, local, back, err)
		}
		prefix := strings.TrimSuffix(path.Clean(root), "/") + "/"
		if p := path.Clean(s.remote); !strings.HasPrefix(p, prefix) || p == prefix {
			t.Fatalf("planDown(%q, %q) reads %q, which is not strictly inside %q", root, local, s.remote, root)
		}
	}
}
