package transfer

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/runfile"
)

// What a copy keeps of a file's mode (docs/files.md, "What a copy
// keeps"): its permission bits, rwx for owner, group and others, both
// ways; never a setuid, setgid or sticky bit, which a sandbox's answer is
// not trusted to set here and which envd does not report. Not its times.

// The modes envd gives what it makes, every version: a file 0666 and a
// directory 0755, both minus its umask, 022 (docs/protocol.md, "File
// modes").
const (
	envdFileMode fs.FileMode = 0o644
	envdDirMode  fs.FileMode = 0o755
)

// Perm is what an upload does with its file's permission bits: Keep
// leaves the file the bits of the one it replaces (a new file has envd's
// 0644), as a shell's > does; Bits gives it those.
type Perm struct {
	bits fs.FileMode
	set  bool
}

// Keep is the Perm of an upload that keeps the replaced file's bits.
var Keep Perm

// Bits is the Perm that gives the file m's permission bits.
func Bits(m fs.FileMode) Perm { return Perm{bits: m & fs.ModePerm, set: true} }

// ParseMode reads a mode as chmod takes it in octal: "755", "0640". Only
// permission bits: 0 to 0777 (flag is how the door names it in errors).
func ParseMode(flag, s string) (fs.FileMode, error) {
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil || n > 0o777 || s == "" || strings.HasPrefix(s, "+") {
		return 0, abxerr.New(abxerr.InvalidInput, "invalid %s %q: permission bits in octal, 0 to 0777", flag, s).
			WithHint("e.g. 755 for a program, 644 for a file others may read, 600 for a private one")
	}
	return fs.FileMode(n), nil
}

// localPerm is what a local file's mode gives the sandbox's copy: its
// permission bits, where modes say who may do what (not on Windows,
// whose bits say little: there, the copy has envd's mode).
func localPerm(st fs.FileInfo) Perm {
	if !runfile.ModesMatter {
		return Keep
	}
	return Bits(st.Mode())
}

// remotePerm is the permission bits the sandbox reports for e; ok is
// false when it reports none (a server that fills neither mode nor
// permissions).
func remotePerm(e envd.Entry) (fs.FileMode, bool) {
	if e.Mode == 0 && e.Permissions == "" {
		return 0, false
	}
	return fs.FileMode(e.Mode) & fs.ModePerm, true
}

// Write uploads r to remote, a file's path, as Put does, and gives the
// file the bits perm asks for.
func (c *Copier) Write(ctx context.Context, remote string, r io.Reader, perm Perm) error {
	_, err := c.sendFile(ctx, remote, r, perm)
	return err
}

// sendFile is Put with the file's bits: when they are not those envd
// gives a new file, the temporary file gets them before it is renamed
// onto remote, so that remote never has other ones. The rename's answer
// says what the file has: an envd that made it otherwise is corrected
// then. Without Modes (a sandbox that runs no processes), the file has
// envd's mode.
func (c *Copier) sendFile(ctx context.Context, remote string, r io.Reader, perm Perm) (envd.Entry, error) {
	made, old, err := prepare(ctx, c.Remote, remote)
	if err != nil {
		return envd.Entry{}, err
	}
	want, set := perm.bits, perm.set
	if !set && old != nil {
		want, set = remotePerm(*old)
	}
	set = set && c.Modes != nil
	var before func(context.Context, string) error
	if set && want != envdFileMode {
		before = func(ctx context.Context, tmp string) error {
			return c.Modes(ctx, path.Dir(tmp), []envd.PathMode{{Path: path.Base(tmp), Mode: want}})
		}
	}
	e, err := put(ctx, c.Remote, remote, r, before)
	if err != nil {
		if made != "" {
			undo(ctx, c.Remote, made)
		}
		return e, err
	}
	if got, known := remotePerm(e); set && known && got != want {
		at := e.Path
		if at == "" {
			at = remote
		}
		if err := c.Modes(ctx, path.Dir(at), []envd.PathMode{{Path: path.Base(at), Mode: want}}); err != nil {
			return e, err
		}
	}
	return e, nil
}

// treeModes are the bits a tree upload gives what it made, once its files
// and links are there: the files whose bits are not what envd gave them,
// then the directories it made, below ones first, so that a directory
// closed to its owner (0555) is closed last.
type treeModes struct {
	files, dirs []envd.PathMode
}

// file notes the file p, uploaded as envd's e, which wants local's bits.
func (t *treeModes) file(p string, e envd.Entry, want Perm) {
	got, known := remotePerm(e)
	if !known {
		got = envdFileMode
	}
	if want.set && got != want.bits {
		t.files = append(t.files, envd.PathMode{Path: p, Mode: want.bits})
	}
}

// dir notes the directory p, made as envd's e, which wants local's bits.
// envd 0.2.10's MakeDir says nothing of the mode: it is envd's 0755.
func (t *treeModes) dir(p string, e envd.Entry, want Perm) {
	got, known := remotePerm(e)
	if !known {
		got = envdDirMode
	}
	if want.set && got != want.bits {
		t.dirs = append(t.dirs, envd.PathMode{Path: p, Mode: want.bits})
	}
}

// all is the files, then the directories, deepest first.
func (t *treeModes) all() []envd.PathMode {
	out := append([]envd.PathMode{}, t.files...)
	for i := len(t.dirs) - 1; i >= 0; i-- {
		out = append(out, t.dirs[i])
	}
	return out
}

// downPerm is what a download gives the local copy of the sandbox's e:
// its permission bits, which the umask cuts as it cuts cp's; none (an
// ordinary file's mode, a directory's 0755) when the sandbox reports
// none, or where modes do not matter here.
func downPerm(e envd.Entry) Perm {
	bits, ok := remotePerm(e)
	if !ok || !runfile.ModesMatter {
		return Keep
	}
	return Bits(bits)
}

// openMode is the mode a tree download makes a directory with: its
// bits, open to its owner while the copy writes in it (closedDirs).
func openMode(perm Perm) fs.FileMode {
	if !perm.set {
		return envdDirMode
	}
	return perm.bits | 0o700
}

// closedDir is a directory a tree download made open to its owner, and
// the mode it gets once the copy is done with it.
type closedDir struct {
	rel  string
	mode fs.FileMode
}

// closedDirs are the directories a tree download made whose bits close
// them to their owner (0555, 0500): made writable for the copy's time.
type closedDirs []closedDir

// note notes the directory rel, made with openMode(perm), when perm's
// bits close it to its owner: it gets what the umask left of the open
// mode, less the owner's bits perm does not have, so that the umask cuts
// it as it would have cut perm.
func (cd *closedDirs) note(root *os.Root, rel string, perm Perm) {
	if !perm.set || perm.bits&0o700 == 0o700 {
		return
	}
	st, err := root.Stat(rel)
	if err != nil {
		return
	}
	*cd = append(*cd, closedDir{rel: rel, mode: st.Mode().Perm() &^ (0o700 &^ perm.bits)})
}

// close gives each its mode, the last made first: below ones before the
// ones they are in.
func (cd closedDirs) close(root *os.Root) {
	for i := len(cd) - 1; i >= 0; i-- {
		_ = root.Chmod(cd[i].rel, cd[i].mode)
	}
}

// makeDirIn makes the directory of step s below root, with its bits. One
// already there (the tree is merged into it, or it was made as a parent)
// keeps its own.
func (c *Copier) makeDirIn(root *os.Root, s step, closed *closedDirs) error {
	err := root.MkdirAll(filepath.Dir(s.rel), 0o755)
	if err == nil {
		err = root.Mkdir(s.rel, openMode(s.perm))
		if errors.Is(err, fs.ErrExist) {
			// A file there fails MkdirAll.
			if err = root.MkdirAll(s.rel, 0o755); err == nil {
				return nil
			}
		}
	}
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot create %s: %v", s.local, LocalReason(err))
	}
	closed.note(root, s.rel, s.perm)
	return nil
}
