//go:build unix

package envd

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	client "github.com/abx-dev/abx/internal/envd"
)

// linkBox is a fake envd (processes not isolated, so it runs anywhere)
// whose sandbox lives in a state directory holding what no sandbox may
// reach: an API key and another sandbox's files.
type linkBox struct {
	c     *client.Client
	s     *Server
	state string // the state directory on this machine
	home  string // the sandbox's /home/user on this machine
	// outside is true when the view reaches state through "/", where only
	// hiding keeps it out of sight. Under /tmp, say, the sandbox's own
	// /tmp stands in its place: a link there leads into the sandbox's
	// directories, where writing is allowed, and never to the state.
	outside bool
}

// stateDir is where a test's state directory goes: /dev/shm where there
// is one, a directory of this machine the view reaches through "/", else
// the usual temporary directory.
func stateDir(t *testing.T) string {
	t.Helper()
	if dir, err := os.MkdirTemp("/dev/shm", "abx-links-test-"); err == nil {
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		return dir
	}
	return t.TempDir()
}

func newLinkBox(t *testing.T, version string) *linkBox {
	t.Helper()
	state := stateDir(t)
	s := New(Options{Root: filepath.Join(state, "sb"), Version: version, AccessToken: token, Hide: []string{state}})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	h := http.Header{}
	h.Set("X-Access-Token", token)
	_, m := s.view.host(state)
	b := &linkBox{c: client.New(ts.Client(), client.Endpoint{URL: ts.URL, Header: h, Version: version}, User),
		s: s, state: state, home: s.Home(), outside: m.target == "/"}
	b.write(t, filepath.Join(state, "api-key"), "SECRET\n")
	b.write(t, filepath.Join(state, "other", "home", "user", "secret.txt"), "other's\n")
	b.write(t, filepath.Join(b.home, "real.txt"), "real\n")
	b.write(t, filepath.Join(b.home, "d", "in-d.txt"), "in d\n")
	return b
}

func (b *linkBox) write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// link makes the link name in the sandbox's home, leading to target.
func (b *linkBox) link(t *testing.T, name, target string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(b.home, name)); err != nil {
		t.Fatal(err)
	}
}

func (b *linkBox) read(p string) (string, error) {
	var out bytes.Buffer
	_, err := b.c.Read(context.Background(), p, &out)
	return out.String(), err
}

func codeOf(err error) abxerr.Code {
	if err == nil {
		return ""
	}
	return abxerr.From(err).Code
}

// The host state b keeps must be as it was: nothing read through a link
// could have changed it, and nothing written through one may.
func (b *linkBox) wantStateUntouched(t *testing.T) {
	t.Helper()
	for p, want := range map[string]string{
		"api-key":                     "SECRET\n",
		"other/home/user/secret.txt":  "other's\n",
		"other/home/user/planted.txt": "",
	} {
		got, err := os.ReadFile(filepath.Join(b.state, p))
		if want == "" {
			if err == nil {
				t.Errorf("%s was written through a link", p)
			}
			continue
		}
		if err != nil || string(got) != want {
			t.Errorf("%s is now %q (%v)", p, got, err)
		}
	}
}

// Links a sandbox makes lead nowhere out of its view: not to the
// directory that holds the sandboxes (the other sandboxes, the API key),
// whether named by an absolute path, a chain of links or a relative one
// climbing with "..". Such a link is a dangling one: reading or listing
// through it is not found, writing through it is refused, and what it
// names on this machine stays as it was. Removing through it removes
// nothing, and succeeds as removing what is not there does.
func TestLinksOutOfTheSandboxLeadNowhere(t *testing.T) {
	t.Parallel()
	b := newLinkBox(t, "0.2.10")
	ctx := context.Background()
	climb := strings.Repeat("../", 16) + strings.TrimPrefix(b.state, "/")
	b.link(t, "statedir", b.state)                           // a host directory outside the root
	b.link(t, "key", filepath.Join(b.state, "api-key"))      // a host file outside the root
	b.link(t, "chain1", "chain2")                            // a chain of links ending outside
	b.link(t, "chain2", filepath.Join(b.home, "chain3"))     // (by its host path: leads nowhere)
	b.link(t, "chain3", filepath.Join(b.state, "api-key"))   //
	b.link(t, "climb", climb+"/api-key")                     // ".." past the root, then outside
	b.link(t, "climbdir", climb+"/other/home/user")          //
	b.link(t, "self", filepath.Join(b.state, "sb", "home"))  // the sandbox's own directory, by its host path
	b.link(t, "dots", "d/../../user/d/../"+climb+"/api-key") // ".." inside the sandbox first

	for _, p := range []string{"key", "chain1", "climb", "dots", "statedir/api-key", "climbdir/secret.txt", "self/user/real.txt"} {
		got, err := b.read(p)
		if codeOf(err) != abxerr.NotFound {
			t.Errorf("read %s: %q, %v; want not found", p, got, err)
		}
		if strings.Contains(p, "/") {
			continue
		}
		// The link itself is there; it leads nowhere, so it has no target.
		if e, err := b.c.Stat(ctx, p); err != nil || e.SymlinkTarget != "" || e.Type != "unknown" {
			t.Errorf("stat %s: %+v, %v", p, e, err)
		}
	}
	for _, p := range []string{"statedir", "climbdir", "self", "self/user"} {
		// A hidden directory itself is there, and empty, as a sandbox
		// process sees it; what was in it is not.
		if entries, err := b.c.ListDir(ctx, p, 2); len(entries) != 0 || (codeOf(err) != abxerr.NotFound && (err != nil || p != "statedir")) {
			t.Errorf("ls %s: %v, %v; want not found", p, entries, err)
		}
	}
	refused := func(what string, err error) {
		t.Helper()
		if b.outside && codeOf(err) != abxerr.PermissionDenied {
			t.Errorf("%s: %v; want permission denied", what, err)
		}
	}
	for _, p := range []string{"key", "chain1", "climb", "statedir/api-key", "climbdir/planted.txt", "climbdir/secret.txt"} {
		refused("write "+p, b.c.Write(ctx, p, strings.NewReader("planted\n")))
	}
	for _, p := range []string{"statedir/new", "climbdir/new", "self/user/new"} {
		_, err := b.c.MakeDir(ctx, p)
		refused("mkdir "+p, err)
	}
	for _, p := range []string{"statedir/api-key", "climbdir/secret.txt", "statedir/other"} {
		if err := b.c.Remove(ctx, p); err != nil {
			t.Errorf("rm %s: %v; want nothing removed, as nothing is there", p, err)
		}
	}
	for _, mv := range [][2]string{{"statedir/api-key", "stolen"}, {"climbdir/secret.txt", "stolen"}} {
		if _, err := b.c.Move(ctx, mv[0], mv[1]); codeOf(err) != abxerr.NotFound {
			t.Errorf("mv %s %s: %v; want not found", mv[0], mv[1], err)
		}
	}
	_, err := b.c.Move(ctx, "real.txt", "climbdir/planted.txt")
	refused("mv real.txt climbdir/planted.txt", err)
	if got, err := os.ReadFile(filepath.Join(b.home, "stolen")); err == nil {
		t.Errorf("a file was moved in through a link: %q", got)
	}
	// Removing a link removes the link, never what it names.
	for _, p := range []string{"key", "statedir", "climbdir"} {
		if err := b.c.Remove(ctx, p); err != nil {
			t.Errorf("rm %s: %v", p, err)
		}
	}
	b.wantStateUntouched(t)
}

// The sandbox's own directory is hidden even when the emulator hides
// nothing more: its etc holds the accounts, its parent the other
// sandboxes. A directory hidden by one name is hidden by its real one
// too: resolve walks this machine's links, and a state dir under a linked
// directory (macOS's /var is /private/var) would otherwise be reached by
// the other.
func TestLinksReachNoHiddenDirectory(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	actual := filepath.Join(base, "actual")
	if err := os.MkdirAll(filepath.Join(actual, "sb"), 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(actual, alias); err != nil {
		t.Fatal(err)
	}
	for _, v := range []*view{newView(filepath.Join(alias, "sb"), []string{alias}, false, false), newView(filepath.Join(alias, "sb"), nil, false, false)} {
		for _, p := range []string{filepath.Join(actual, "sb"), filepath.Join(actual, "sb", "etc"), filepath.Join(alias, "sb", "home")} {
			if !v.hidden(p) {
				t.Errorf("%s is not hidden", p)
			}
		}
	}
	v := newView(filepath.Join(alias, "sb"), []string{alias}, false, false)
	for _, p := range []string{actual, filepath.Join(actual, "api-key"), alias + "/x"} {
		if !v.hidden(p) {
			t.Errorf("%s is not hidden", p)
		}
	}
	if v.hidden(base) {
		t.Errorf("%s, which holds the hidden directory, is hidden", base)
	}
}

// A link that stays inside the sandbox works as on envd: reads, writes
// and listings go through it, and entries name the path asked for.
func TestLinksInsideTheSandboxWork(t *testing.T) {
	t.Parallel()
	b := newLinkBox(t, "0.2.10")
	ctx := context.Background()
	b.link(t, "fl", "real.txt")
	b.link(t, "dl", filepath.Join("/home/user", "d"))
	b.link(t, "chain", "fl")
	b.link(t, "up", "d/../d")
	for _, p := range []string{"fl", "chain"} {
		if got, err := b.read(p); err != nil || got != "real\n" {
			t.Errorf("read %s: %q, %v", p, got, err)
		}
	}
	for _, p := range []string{"dl/in-d.txt", "up/in-d.txt"} {
		if got, err := b.read(p); err != nil || got != "in d\n" {
			t.Errorf("read %s: %q, %v", p, got, err)
		}
	}
	if err := b.c.Write(ctx, "chain", strings.NewReader("through\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(b.home, "real.txt")); string(got) != "through\n" {
		t.Errorf("real.txt after a write through a link: %q", got)
	}
	if _, err := b.c.MakeDir(ctx, "dl/sub"); err != nil {
		t.Errorf("mkdir through a link: %v", err)
	}
	entries, err := b.c.ListDir(ctx, "dl", 1)
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.Path)
	}
	if err != nil || strings.Join(paths, " ") != "/home/user/dl/in-d.txt /home/user/dl/sub" {
		t.Errorf("ls dl: %v, %v", paths, err)
	}
	if e, err := b.c.Stat(ctx, "dl/in-d.txt"); err != nil || e.Path != "/home/user/dl/in-d.txt" {
		t.Errorf("stat dl/in-d.txt: %+v, %v", e, err)
	}
}

// This machine's read-only rest of the view (/etc) is the same through a
// link as by its own path: readable, and not to be changed.
func TestLinksToTheReadOnlyRestStayReadOnly(t *testing.T) {
	t.Parallel()
	b := newLinkBox(t, "0.2.10")
	ctx := context.Background()
	b.link(t, "etc", "/etc")
	if _, err := b.c.Stat(ctx, "etc/passwd"); err != nil {
		t.Errorf("stat etc/passwd: %v", err)
	}
	if err := b.c.Write(ctx, "etc/abx-links-test", strings.NewReader("x")); codeOf(err) != abxerr.PermissionDenied {
		t.Errorf("write etc/abx-links-test: %v; want permission denied", err)
	}
	if _, err := os.Stat("/etc/abx-links-test"); err == nil {
		t.Error("a write through a link reached this machine's /etc")
	}
}

// envd describes a link by what it leads to: the target's type, and the
// target's resolved path. One that leads nowhere has no target before
// 0.5.5, and its own path from then on; its type is neither file nor
// directory.
func TestLinksAreDescribedByTheirTargets(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"0.2.10", "0.5.5", "0.6.2"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			b := newLinkBox(t, v)
			ctx := context.Background()
			b.link(t, "fl", "real.txt")
			b.link(t, "dl", "d")
			b.link(t, "gone", "missing.txt")
			b.link(t, "key", filepath.Join(b.state, "api-key"))
			dangling := ""
			if v != "0.2.10" {
				dangling = "/home/user/"
			}
			want := map[string][2]string{
				"fl": {"file", "/home/user/real.txt"}, "dl": {"dir", "/home/user/d"},
				"gone": {"unknown", dangling + "gone"}, "key": {"unknown", dangling + "key"},
			}
			if dangling == "" {
				want["gone"], want["key"] = [2]string{"unknown", ""}, [2]string{"unknown", ""}
			}
			entries, err := b.c.ListDir(ctx, ".", 1)
			if err != nil {
				t.Fatal(err)
			}
			seen := 0
			for _, e := range entries {
				w, ok := want[e.Name]
				if !ok {
					continue
				}
				seen++
				if e.Type != w[0] || e.SymlinkTarget != w[1] || !strings.HasPrefix(e.Permissions, "L") {
					t.Errorf("ls: %s is %s -> %q (%s), want %s -> %q", e.Name, e.Type, e.SymlinkTarget, e.Permissions, w[0], w[1])
				}
				if s, err := b.c.Stat(ctx, e.Name); err != nil || s.Type != e.Type || s.SymlinkTarget != e.SymlinkTarget {
					t.Errorf("stat %s: %+v, %v; ls says %+v", e.Name, s, err, e)
				}
			}
			if seen != len(want) {
				t.Errorf("ls: %d of the %d links", seen, len(want))
			}
			// Listing a tree does not enter a link to a directory.
			all, err := b.c.ListDir(ctx, ".", 3)
			for _, e := range all {
				if strings.HasPrefix(e.Path, "/home/user/dl/") {
					t.Errorf("ls -depth 3 entered dl: %s", e.Path)
				}
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
}
