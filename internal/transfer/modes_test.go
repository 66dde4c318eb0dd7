//go:build unix

package transfer

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/transfer/transfertest"
)

// umask is this process's umask, as a file made 0777 shows it.
func umask(t *testing.T) fs.FileMode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o777)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ st.Mode().Perm()
}

// modeOf is a local path's permission bits.
func modeOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func chmodLocal(t *testing.T, dir string, modes map[string]fs.FileMode) {
	t.Helper()
	for p, m := range modes {
		if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(p)), m); err != nil {
			t.Fatal(err)
		}
	}
}

// A file copied in gets its permission bits, set on the temporary file
// before it is renamed onto its path, so that the path never has other
// ones; a file with envd's own 0644 costs no chmod. Without Modes (a
// sandbox that runs no processes) the file has envd's mode.
func TestCopyUpKeepsAFilesMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"x.sh": "#!/bin/sh\n", "plain.txt": "p\n", "secret.txt": "s\n"})
	chmodLocal(t, dir, map[string]fs.FileMode{"x.sh": 0o755, "secret.txt": 0o600})
	r := newFakeRemote()
	r.dirs = []string{"/home/user"}
	c := &Copier{Remote: r, Sandbox: "sb-1", Modes: r.chmod}
	ctx := context.Background()
	for _, name := range []string{"x.sh", "plain.txt", "secret.txt"} {
		if _, err := c.CopyUp(ctx, filepath.Join(dir, name), "/home/user/", false); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.chmods) != 2 || !strings.HasPrefix(r.chmods[0], "/home/user: 755 .x.sh.abx-") || !strings.HasPrefix(r.chmods[1], "/home/user: 600 .secret.txt.abx-") {
		t.Errorf("chmods %q, want one on each temporary file but plain.txt's", r.chmods)
	}
	if got := r.modes; got["/home/user/x.sh"] != 0o755 || got["/home/user/secret.txt"] != 0o600 || len(got) != 2 {
		t.Errorf("modes %v", got)
	}
	// No Modes: the copy is made, with envd's mode.
	r2 := newFakeRemote()
	if _, err := (&Copier{Remote: r2}).CopyUp(ctx, filepath.Join(dir, "x.sh"), "x.sh", false); err != nil || r2.files["x.sh"] != "#!/bin/sh\n" {
		t.Errorf("%v, files %q", err, r2.files)
	}
}

// An envd whose new files are not 0644 says so in Move's answer: the
// file is given its bits then.
func TestCopyUpCorrectsAnotherEnvdMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	transfertest.WriteTree(t, dir, map[string]string{"plain.txt": "p\n"})
	r := newFakeRemote()
	r.moveMode = 0o600
	c := &Copier{Remote: r, Sandbox: "sb-1", Modes: r.chmod}
	if _, err := c.CopyUp(context.Background(), filepath.Join(dir, "plain.txt"), "/tmp/p.txt", false); err != nil {
		t.Fatal(err)
	}
	if want := []string{"/tmp: 644 p.txt"}; !reflect.DeepEqual(r.chmods, want) {
		t.Errorf("chmods %q, want %q", r.chmods, want)
	}
}

// files write keeps the bits of the file it replaces (a new one has
// envd's), unless it is given some.
func TestWriteKeepsTheReplacedFilesMode(t *testing.T) {
	t.Parallel()
	r := newFakeRemote()
	r.files["/home/user/run.sh"] = "old"
	r.modes["/home/user/run.sh"] = 0o755
	c := &Copier{Remote: r, Sandbox: "sb-1", Modes: r.chmod}
	ctx := context.Background()
	if err := c.Write(ctx, "/home/user/run.sh", strings.NewReader("new"), Keep); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, "/home/user/new.txt", strings.NewReader("n"), Keep); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, "/home/user/set.txt", strings.NewReader("s"), Bits(0o640)); err != nil {
		t.Fatal(err)
	}
	if got := r.modes; got["/home/user/run.sh"] != 0o755 || got["/home/user/set.txt"] != 0o640 || len(got) != 2 || len(r.chmods) != 2 {
		t.Errorf("modes %v after %q", got, r.chmods)
	}
}

// A tree copied in gets its files' bits and those of the directories the
// copy made, in one go at the end: the files, then the directories, the
// ones below first, so that one closed to its owner is closed last. What
// already has the bits envd gives (a 0644 file, a 0755 directory) is left
// alone, and so is a directory that was there.
func TestCopyUpKeepsATreesModes(t *testing.T) {
	t.Parallel()
	tree := filepath.Join(t.TempDir(), "t")
	transfertest.WriteTree(t, tree, map[string]string{"run.sh": "r", "a.txt": "a", "bin/tool": "t", "ro/d.txt": "d", "ro/in/x": "x"})
	chmodLocal(t, tree, map[string]fs.FileMode{".": 0o750, "run.sh": 0o755, "bin/tool": 0o700, "ro/d.txt": 0o640, "ro/in": 0o555, "ro": 0o555})
	t.Cleanup(func() { chmodLocal(t, tree, map[string]fs.FileMode{"ro": 0o755, "ro/in": 0o755}) })
	for _, into := range []bool{false, true} {
		r := newFakeRemote()
		r.dirs = []string{"/home/user"}
		from := tree
		want := []string{"/home/user/t: 700 bin/tool 640 ro/d.txt 755 run.sh 555 ro/in 555 ro 750 ."}
		if into {
			// t and t/bin are there: they keep their bits.
			r.dirs = append(r.dirs, "/home/user/t/bin")
			from = tree + string(filepath.Separator) + "."
			want = []string{"/home/user/t: 700 bin/tool 640 ro/d.txt 755 run.sh 555 ro/in 555 ro"}
		}
		c := &Copier{Remote: r, Sandbox: "sb-1", Modes: r.chmod}
		if _, err := c.CopyUp(context.Background(), from, "/home/user/t", true); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.chmods, want) {
			t.Errorf("into %v: chmods\n%q, want\n%q", into, r.chmods, want)
		}
	}
}

// A file copied out gets the sandbox's permission bits, less the umask,
// as cp gives; never a setuid, setgid or sticky bit, whatever the sandbox
// says; an ordinary file's mode when it says none.
func TestCopyDownKeepsAFilesMode(t *testing.T) {
	t.Parallel()
	mask := umask(t)
	dir := t.TempDir()
	r := newFakeRemote()
	for p, m := range map[string]fs.FileMode{"x.sh": 0o755, "private": 0o600, "suid": 0o4775 | fs.ModeSetuid} {
		r.files[p] = p
		r.stat[p] = envd.Entry{Name: p, Path: p, Type: "file", Mode: uint32(m), Permissions: m.String()}
	}
	r.files["plain"] = "plain" // no mode said
	c := &Copier{Remote: r, Sandbox: "sb-1"}
	for p, want := range map[string]fs.FileMode{"x.sh": 0o755, "private": 0o600, "suid": 0o775, "plain": 0o644} {
		local := filepath.Join(dir, p)
		if _, err := c.CopyDown(context.Background(), p, local, false); err != nil {
			t.Fatal(err)
		}
		if p != "plain" {
			want &^= mask
		}
		if st, err := os.Lstat(local); err != nil || st.Mode() != want {
			t.Errorf("%s: %v %v, want %v", p, st.Mode(), err, want)
		}
	}
}

// A tree copied out keeps its files' and directories' bits, less the
// umask; a directory closed to its owner (0555) is written in all the
// same, and closed at the end; one that was there keeps its bits.
func TestCopyDownKeepsATreesModes(t *testing.T) {
	t.Parallel()
	mask := umask(t)
	r := newFakeRemote()
	entry := func(p, typ string, m fs.FileMode) envd.Entry {
		if typ == "dir" {
			m |= fs.ModeDir
		}
		return envd.Entry{Name: filepath.Base(p), Path: p, Type: typ, Mode: uint32(m.Perm()), Permissions: m.String()}
	}
	r.stat["/w/t"] = entry("/w/t", "dir", 0o750)
	r.listing["/w/t"] = []envd.Entry{entry("/w/t/ro", "dir", 0o555), entry("/w/t/ro/in", "dir", 0o500), entry("/w/t/ro/in/x", "file", 0o700),
		entry("/w/t/ro/d.txt", "file", 0o640), entry("/w/t/there", "dir", 0o700), entry("/w/t/run.sh", "file", 0o755)}
	for _, p := range []string{"/w/t/ro/in/x", "/w/t/ro/d.txt", "/w/t/run.sh"} {
		r.files[p] = p
	}
	for _, into := range []bool{false, true} {
		base := t.TempDir()
		local, remote := filepath.Join(base, "t"), "/w/t"
		if into {
			transfertest.WriteTree(t, local, nil, "there")
			remote = "/w/t/." // its contents, into t
		}
		t.Cleanup(func() {
			_ = os.Chmod(filepath.Join(local, "ro", "in"), 0o755)
			_ = os.Chmod(filepath.Join(local, "ro"), 0o755)
		})
		res, err := (&Copier{Remote: r, Sandbox: "sb-1"}).CopyDown(context.Background(), remote, local, true)
		if err != nil || res.Files != 3 {
			t.Fatalf("%v (%d files)", err, res.Files)
		}
		want := map[string]fs.FileMode{".": 0o750, "ro": 0o555, "ro/in": 0o500, "ro/in/x": 0o700, "ro/d.txt": 0o640, "there": 0o700, "run.sh": 0o755}
		if into {
			want["."], want["there"] = 0o755, 0o755 // there: left as they were
		}
		for p, m := range want {
			if got := modeOf(t, filepath.Join(local, filepath.FromSlash(p))); got != m&^mask {
				t.Errorf("into %v: %s is %v, want %v", into, p, got, m&^mask)
			}
		}
	}
}

// --mode takes permission bits in octal, as chmod does, and nothing else.
func TestParseMode(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]fs.FileMode{"755": 0o755, "0640": 0o640, "0": 0, "777": 0o777, "00600": 0o600} {
		if got, err := ParseMode("--mode", in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "7777", "4755", "u+x", "rwx", "8", "-1", "+7", "0x1ff", " 755"} {
		_, err := ParseMode("--mode", in)
		if e := abxerr.From(err); e == nil || e.Code != abxerr.InvalidInput || !strings.Contains(e.Message, "invalid --mode") {
			t.Errorf("%q: %v", in, err)
		}
	}
}
