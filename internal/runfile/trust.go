package runfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/shell"
)

// Who may have written abx's private files (the config file, which says
// where the key is sent, and the key files) is decided as ssh's
// StrictModes decides it for a user's keys (its safe_path): a file's own
// mode is not enough, since whoever may replace the file, or a directory
// above it, may point the key at a server of theirs
// (docs/configuration.md, "Who may change these files"):
//
//   - the file is owned by the user or by root (its mode is the caller's
//     to check: the config file others may read, a key file not);
//   - every directory above it, links resolved, up to the user's home
//     (itself included) or, for a file outside the home, up to /, is owned
//     by the user or by root, and is writable by neither group nor others;
//   - but a directory of root's with the sticky bit (as /tmp), in which an
//     entry only its owner may remove or rename, which ssh refuses too.
//
// The user is the effective uid: root trusts its own files and root's
// alone, not those of the user whose home it was given.

// Home is the user's home as the rule reads it, $HOME when absolute; ""
// for none (the walk then goes up to /).
func Home(getenv func(string) string) string {
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return h
	}
	return ""
}

// CheckTrusted refuses a private file someone but the user or root could
// have written or could replace. subject names it in the error (its path,
// or "the key file PATH"); info is the open file's own (not a second look
// up of path); home is Home's.
func CheckTrusted(subject, path string, info fs.FileInfo, home string) error {
	return checkTrusted(subject, path, info, home, os.Geteuid())
}

// CheckDirs refuses to write a private file at path where someone but the
// user or root could replace it: the directories above it, as
// CheckTrusted checks them.
func CheckDirs(subject, path, home string) error {
	if !ModesMatter {
		return nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return unresolved(subject, path, err)
	}
	return checkDirs(subject, dir, home, os.Geteuid())
}

func checkTrusted(subject, path string, info fs.FileInfo, home string, uid int) error {
	if !ModesMatter {
		return nil
	}
	if owner, ok := ownerOf(info); ok && !trusts(uid, owner) {
		return abxerr.New(abxerr.InvalidConfig, "%s is owned by uid %d, not by %s: its owner may rewrite it", subject, owner, you(uid)).
			WithHint("%s", chownHint(uid, owner, path))
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return unresolved(subject, path, err)
	}
	return checkDirs(subject, filepath.Dir(resolved), home, uid)
}

// checkDirs walks up from dir, a real path, to the home or to /.
func checkDirs(subject, dir, home string, uid int) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return unresolved(subject, dir, err)
	}
	if home != "" {
		if h, err := filepath.EvalSymlinks(home); err == nil {
			home = h
		} else {
			home = "" // a home that is not there stops nothing
		}
	}
	for {
		info, err := os.Stat(dir)
		if err != nil {
			return unresolved(subject, dir, err)
		}
		owner, ok := ownerOf(info)
		switch {
		case ok && !trusts(uid, owner):
			return abxerr.New(abxerr.InvalidConfig, "%s is not safe: %s is owned by uid %d, not by %s, and its owner may replace it", subject, dir, owner, you(uid)).
				WithHint("%s", chownHint(uid, owner, dir))
		case info.Mode().Perm()&0o022 != 0 && !(ok && owner == 0 && info.Mode()&fs.ModeSticky != 0):
			return abxerr.New(abxerr.InvalidConfig, "%s is not safe: others may write in %s (mode %04o) and replace it", subject, dir, info.Mode().Perm()).
				WithHint("run: chmod go-w %s", shell.Quote(dir))
		}
		parent := filepath.Dir(dir)
		if dir == home || parent == dir {
			return nil
		}
		dir = parent
	}
}

// trusts tells whether the user uid trusts what owner owns.
func trusts(uid int, owner uint32) bool { return owner == 0 || int64(owner) == int64(uid) }

// you names the user uid and root, whose files it trusts.
func you(uid int) string {
	if uid == 0 {
		return "you (root)"
	}
	return fmt.Sprintf("you (uid %d) or root", uid)
}

// chownHint is the one line that mends a file or directory of another
// owner's: root runs abx as that user, or takes it; a user takes it back.
func chownHint(uid int, owner uint32, path string) string {
	if uid == 0 {
		return fmt.Sprintf("run abx as uid %d, whose it is, or check what it holds and run: chown 0 %s", owner, shell.Quote(path))
	}
	return fmt.Sprintf("check what it holds, then run: sudo chown %d %s", uid, shell.Quote(path))
}

func unresolved(subject, path string, err error) error {
	return abxerr.New(abxerr.InvalidConfig, "cannot check who may change %s: %v", subject, err).
		WithHint("check %s and the directories above it", shell.Quote(path))
}
