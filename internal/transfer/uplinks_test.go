package transfer

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// linkTree is a local tree with every kind of link a user's tree holds,
// and a secret beside it that no upload may read.
func linkTree(t *testing.T) (tree, secret string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need rights on Windows")
	}
	base := t.TempDir()
	tree = filepath.Join(base, "t")
	secret = filepath.Join(base, "secret.txt")
	transfertest.WriteTree(t, base, map[string]string{"secret.txt": "SECRET\n", "outdir/x": "out\n"})
	transfertest.WriteTree(t, tree, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n", "z.txt": "z\n"}, "s")
	for name, target := range map[string]string{
		"filelink":   "a.txt",                      // a file inside
		"dirlink":    "sub",                        // a directory inside
		"sub/up":     "../a.txt",                   // up, still inside
		"dangling":   "not-yet.txt",                // nowhere, inside
		"self":       ".",                          // the tree itself
		"shadowlink": secret,                       // absolute: out
		"abs-in":     filepath.Join(tree, "a.txt"), // absolute, even into the tree
		"outrel":     "../secret.txt",              // relative, out
		"outdir":     "../outdir",                  // a directory out
		"s/parent":   "..",                         // the tree, from s
		"s/sneak":    "parent/../..",               // out, through a link inside
		"loop1":      "loop2",                      //
		"loop2":      "loop1",                      // a loop
		"bytes":      "not-yet\xff.txt",            // a target envd's strings cannot carry
	} {
		if err := os.Symlink(target, filepath.Join(tree, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return tree, secret
}

// Links are kept as links when they stay inside the tree, through its own
// links too, and left out, each with its reason, when they lead out of it:
// nothing outside the tree is read, and a link to a directory is one like
// any, never a reason to stop half way.
func TestPlanUpKeepsLinksInsideTheTree(t *testing.T) {
	t.Parallel()
	tree, _ := linkTree(t)
	root, err := os.OpenRoot(tree)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = root.Close() }()
	plan, err := planUp(root, tree)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, l := range plan.links {
		links[l.Path] = l.Target
	}
	wantLinks := map[string]string{"filelink": "a.txt", "dirlink": "sub", "sub/up": "../a.txt", "dangling": "not-yet.txt", "self": ".", "s/parent": ".."}
	if !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("links %v, want %v", links, wantLinks)
	}
	skipped := map[string]string{}
	for _, s := range plan.skipped {
		skipped[strings.TrimPrefix(s.Path, tree+string(filepath.Separator))] = s.Reason
	}
	wantSkipped := map[string]string{"shadowlink": skipAbs, "abs-in": skipAbs, "outrel": skipOut, "outdir": skipOut,
		filepath.Join("s", "sneak"): skipOut, "loop1": skipLoop, "loop2": skipLoop, "bytes": skipTarget}
	if !reflect.DeepEqual(skipped, wantSkipped) {
		t.Errorf("skipped %v, want %v", skipped, wantSkipped)
	}
	if want := []string{"a.txt", "sub/b.txt", "z.txt"}; !reflect.DeepEqual(plan.files, want) {
		t.Errorf("files %v, want %v", plan.files, want)
	}
	if want := []string{"s", "sub"}; !reflect.DeepEqual(plan.dirs, want) {
		t.Errorf("directories %v, want %v", plan.dirs, want)
	}
}

// The upload sends the tree's files, then makes its links in one call,
// below the tree's path as envd named it; without a way to make links,
// each is left out with a note. The secret beside the tree never goes.
func TestCopyUpATreeWithLinks(t *testing.T) {
	t.Parallel()
	tree, _ := linkTree(t)
	for _, canLink := range []bool{true, false} {
		r := newFakeRemote()
		r.dirs = []string{"/home/user"}
		var madeIn string
		var made []envd.Symlink
		c := &Copier{Remote: r, Sandbox: "sb-1"}
		if canLink {
			c.Links = func(_ context.Context, dir string, links []envd.Symlink) error { madeIn, made = dir, links; return nil }
		}
		res, err := c.CopyUp(context.Background(), tree, "/home/user/t", true)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"/home/user/t/a.txt": "a\n", "/home/user/t/sub/b.txt": "b\n", "/home/user/t/z.txt": "z\n"}
		if !reflect.DeepEqual(r.files, want) || res.Files != 3 {
			t.Errorf("remote files %q (%d), want %q", r.files, res.Files, want)
		}
		notes := 8 // the links out of the tree, and one envd cannot make
		if canLink {
			if madeIn != "/home/user/t" || len(made) != 6 || res.Links != 6 {
				t.Errorf("links made in %q: %v (%d)", madeIn, made, res.Links)
			}
		} else {
			notes += 6
			if res.Links != 0 || !slices.ContainsFunc(res.Skipped, func(s Skip) bool { return s.Reason == skipNoLinks }) {
				t.Errorf("result %+v", res)
			}
		}
		if len(res.Skipped) != notes {
			t.Errorf("can link %v: %d left out, want %d: %v", canLink, len(res.Skipped), notes, res.Skipped)
		}
	}
}

// Every local input is checked before a byte is sent: a directory that
// cannot be read refuses the copy, with no request made.
func TestCopyUpChecksTheTreeFirst(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a user that modes refuse")
	}
	tree := filepath.Join(t.TempDir(), "t")
	transfertest.WriteTree(t, tree, map[string]string{"a.txt": "a\n", "z/locked/x": "x\n"})
	locked := filepath.Join(tree, "z", "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	r := newCallsRemote(newFakeRemote())
	_, err := (&Copier{Remote: r}).CopyUp(context.Background(), tree, "t", true)
	if codeOf(t, err) != abxerr.InvalidInput || !strings.Contains(err.Error(), locked) || len(r.calls) != 0 {
		t.Errorf("%v after %v; want E1002 naming %s before any request", err, r.calls, locked)
	}
}

// A pipe in the tree is left out, not read (reading it would wait
// forever), and a name that is not UTF-8, which envd cannot carry, too.
func TestCopyUpLeavesOutWhatItCannotSend(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("pipes and byte names as Linux has them")
	}
	tree := filepath.Join(t.TempDir(), "t")
	transfertest.WriteTree(t, tree, map[string]string{"a.txt": "a\n", "bad\xffdir/in.txt": "in\n", "bad\xff.txt": "x\n"})
	if err := syscall.Mkfifo(filepath.Join(tree, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newFakeRemote()
	res, err := (&Copier{Remote: r}).CopyUp(context.Background(), tree, "t", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"t/a.txt": "a\n"}; !reflect.DeepEqual(r.files, want) {
		t.Errorf("remote files %q", r.files)
	}
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	if want := map[string]string{"fifo": skipSpecial, "bad\xffdir": skipUTF8, "bad\xff.txt": skipUTF8}; !reflect.DeepEqual(reasons, want) {
		t.Errorf("left out %q", reasons)
	}
}
