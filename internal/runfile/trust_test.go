//go:build unix

package runfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
)

// tree makes home/.config/abx/config.yaml as abx makes it: 0600 in 0700
// directories. It returns the home and the file.
func tree(t *testing.T) (home, file string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "home")
	dir := filepath.Join(home, ".config", "abx")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{home, filepath.Join(home, ".config"), dir} {
		if err := os.Chmod(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	file = filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(file, []byte("current: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, file
}

// check runs the rule on file as it is now, as the user uid.
func check(t *testing.T, file, home string, uid int) error {
	t.Helper()
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	return checkTrusted(file, file, info, home, uid)
}

func wantRefusal(t *testing.T, err error, message, hint string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want %q", message)
	}
	e := abxerr.From(err)
	if e.Code != abxerr.InvalidConfig || !strings.Contains(e.Message, message) || !strings.Contains(e.Hint, hint) {
		t.Errorf("got %s: %s; %s\nwant %q; %q", e.Code, e.Message, e.Hint, message, hint)
	}
}

func TestTrustAcceptsAPrivateTree(t *testing.T) {
	t.Parallel()
	home, file := tree(t)
	if err := CheckTrusted(file, file, mustStat(t, file), home); err != nil {
		t.Fatal(err)
	}
	// And without a home: every directory up to / (the temporary
	// directory's sticky, root-owned parent included).
	if err := CheckTrusted(file, file, mustStat(t, file), ""); err != nil {
		t.Fatal(err)
	}
}

func mustStat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// A directory on the way that others may write in lets them replace the
// file: refused, with the chmod that mends it.
func TestTrustRefusesADirectoryOthersMayWrite(t *testing.T) {
	t.Parallel()
	for _, mode := range []os.FileMode{0o777, 0o770, 0o707} {
		home, file := tree(t)
		dir := filepath.Dir(file)
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, CheckTrusted(file, file, mustStat(t, file), home),
			file+" is not safe: others may write in "+dir, "run: chmod go-w "+dir)
		// The home itself is checked too.
		_ = os.Chmod(dir, 0o700)
		if err := os.Chmod(home, mode); err != nil {
			t.Fatal(err)
		}
		wantRefusal(t, CheckTrusted(file, file, mustStat(t, file), home), "others may write in "+home, "chmod go-w "+home)
	}
}

// The walk stops at the home, as ssh's does: what is above it is the
// system's. A file outside the home is checked up to /.
func TestTrustStopsAtTheHome(t *testing.T) {
	t.Parallel()
	home, file := tree(t)
	above := filepath.Dir(home)
	if err := os.Chmod(above, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := CheckTrusted(file, file, mustStat(t, file), home); err != nil {
		t.Errorf("above the home: %v", err)
	}
	// A home given through a link is the same home.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckTrusted(file, file, mustStat(t, file), link); err != nil {
		t.Errorf("a home through a link: %v", err)
	}
	wantRefusal(t, CheckTrusted(file, file, mustStat(t, file), ""), "others may write in "+above, "chmod go-w "+above)
	wantRefusal(t, CheckTrusted(file, file, mustStat(t, file), t.TempDir()), "others may write in "+above, "chmod go-w "+above)
}

// The directories walked are the file's real ones, its links resolved.
func TestTrustFollowsLinks(t *testing.T) {
	t.Parallel()
	home, _ := tree(t)
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(open, "config.yaml")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, ".config", "abx", "linked.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, CheckTrusted(link, link, mustStat(t, link), home), "others may write in "+open, "chmod go-w "+open)
}

// A file is trusted when it is the user's or root's. Said to run as
// another user than the one who made the tree, the rule refuses it; as
// root, it refuses a user's file too (root trusts root's alone); root's
// files are anyone's.
func TestTrustRefusesAnotherUsersFiles(t *testing.T) {
	t.Parallel()
	home, file := tree(t)
	me := os.Geteuid()
	if me == 0 {
		if err := check(t, file, home, 1000); err != nil {
			t.Errorf("root's files, as uid 1000: %v", err)
		}
		return
	}
	wantRefusal(t, check(t, file, home, 0), file+" is owned by uid "+itoa(me)+", not by you (root)", "run abx as uid "+itoa(me))
	wantRefusal(t, check(t, file, home, me+1), file+" is owned by uid "+itoa(me)+", not by you (uid "+itoa(me+1)+") or root",
		"run: sudo chown "+itoa(me+1)+" "+file)
}

// As root, for real: a file and a directory chowned to another uid.
func TestTrustRefusesAnotherUidForReal(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another uid (CI runs the tests as root)")
	}
	home, file := tree(t)
	if err := os.Chown(file, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, check(t, file, home, 0), file+" is owned by uid 65534, not by you (root)", "run abx as uid 65534")
	// The same file is the user 65534's own, in root's directories.
	if err := check(t, file, home, 65534); err != nil {
		t.Errorf("as its owner: %v", err)
	}
	if err := os.Chown(file, 0, 0); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(file)
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, check(t, file, home, 0), file+" is not safe: "+dir+" is owned by uid 65534", "chown 0 "+dir)
}

// A sticky directory of root's (as /tmp) is safe to pass through, others'
// writes notwithstanding: in it only an entry's owner may remove or rename
// the entry. A sticky directory of anyone else's is not.
func TestTrustPassesARootStickyDirectory(t *testing.T) {
	t.Parallel()
	home, file := tree(t)
	above := filepath.Dir(home)
	if err := os.Chmod(above, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	err := CheckTrusted(file, file, mustStat(t, file), "")
	if os.Geteuid() == 0 {
		if err != nil {
			t.Errorf("root's sticky directory: %v", err)
		}
		return
	}
	wantRefusal(t, err, "others may write in "+above, "chmod go-w "+above)
}

// A directory where the file is about to be written is checked the same.
func TestTrustChecksWhereAFileIsWritten(t *testing.T) {
	t.Parallel()
	home, file := tree(t)
	dir := filepath.Dir(file)
	fresh := filepath.Join(dir, "keys", "default")
	if err := os.Mkdir(filepath.Dir(fresh), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckDirs(fresh, fresh, home); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	wantRefusal(t, CheckDirs(fresh, fresh, home), fresh+" is not safe: others may write in "+dir, "chmod go-w "+dir)
}

func itoa(n int) string { return strconv.Itoa(n) }
