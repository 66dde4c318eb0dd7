//go:build unix

package envd

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// The view is what a sandbox's paths mean, for the files API and for
// processes alike (docs/emulator.md, "Isolation"): the sandbox's own
// directories at /home/user, /tmp, /var/tmp and /root, a /home holding
// only user, and the rest of this machine read-only. Paths are resolved
// here, symlinks included, so that a link a sandbox makes never leads the
// files API out of the view.

// Writable are the sandbox directories, as sandbox paths.
var Writable = []string{"/home/user", "/tmp", "/var/tmp", "/root"}

// maxLinks bounds the symlinks followed in one path, as the kernel does.
const maxLinks = 40

var errLoop = errors.New("too many levels of symbolic links")

// mount is one sandbox directory and where it is on this machine.
type mount struct {
	target, source string
	writable       bool
}

type view struct {
	mounts []mount  // the longest target first
	hide   []string // directories of this machine seen empty
}

func newView(root string, hide []string) *view {
	v := &view{hide: hide}
	for _, t := range Writable {
		v.mounts = append(v.mounts, mount{target: t, source: filepath.Join(root, filepath.FromSlash(t[1:])), writable: true})
	}
	// /home has nothing but user: it is the sandbox's own home directory.
	v.mounts = append(v.mounts, mount{target: "/home", source: filepath.Join(root, "home")},
		mount{target: "/", source: "/"})
	sort.SliceStable(v.mounts, func(i, j int) bool { return len(v.mounts[i].target) > len(v.mounts[j].target) })
	return v
}

// within reports whether p is dir or under it (both clean sandbox paths).
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// host is where the clean sandbox path p is on this machine.
func (v *view) host(p string) (string, mount) {
	for _, m := range v.mounts {
		if within(p, m.target) {
			return filepath.Join(m.source, filepath.FromSlash(strings.TrimPrefix(p, m.target))), m
		}
	}
	return p, mount{target: "/", source: "/"} // unreachable: "/" is a mount
}

// isTarget reports whether p is where a sandbox directory is mounted.
func (v *view) isTarget(p string) bool {
	for _, m := range v.mounts {
		if m.target == p {
			return true
		}
	}
	return false
}

// hidden reports whether the machine path h is inside a hidden directory.
// It matters only for paths reached through "/": the sandbox's own
// directories live inside the emulator's state, which is hidden.
func (v *view) hidden(h string) bool {
	for _, d := range v.hide {
		if within(h, filepath.Clean(d)) {
			return true
		}
	}
	return false
}

// lstat is os.Lstat through the view: a hidden directory is empty, and
// what is inside it does not exist.
func (v *view) lstat(p string) (fs.FileInfo, error) {
	h, m := v.host(p)
	if m.target == "/" && v.hidden(h) && !v.hiddenRoot(h) {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist}
	}
	return os.Lstat(h)
}

func (v *view) hiddenRoot(h string) bool {
	for _, d := range v.hide {
		if h == filepath.Clean(d) {
			return true
		}
	}
	return false
}

// readDir lists the sandbox directory p.
func (v *view) readDir(p string) ([]fs.DirEntry, error) {
	h, m := v.host(p)
	if m.target == "/" && v.hidden(h) {
		return nil, nil
	}
	entries, err := os.ReadDir(h)
	if p == "/home" {
		// Whatever else the sandbox's home parent holds, /home shows user.
		var only []fs.DirEntry
		for _, e := range entries {
			if e.Name() == "user" {
				only = append(only, e)
			}
		}
		entries = only
	}
	return entries, err
}

// resolve follows the symlinks of the clean sandbox path p (all of them,
// or all but the last component's when follow is false) inside the view,
// and returns the sandbox path they lead to.
func (v *view) resolve(p string, follow bool) (string, error) {
	links := 0
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == "" {
			continue
		}
		next := path.Join(cur, name)
		if len(rest) == 0 && !follow {
			return next, nil
		}
		st, err := v.lstat(next)
		if err != nil {
			// What does not exist holds no links: the rest is literal.
			return path.Join(append([]string{next}, rest...)...), nil
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: errLoop}
		}
		h, _ := v.host(next)
		target, err := os.Readlink(h)
		if err != nil {
			return "", err
		}
		if path.IsAbs(target) {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return cur, nil
}

// open opens the resolved l on this machine. Inside a sandbox directory,
// whose processes may swap a directory for a link between resolve and
// open, the path below the directory must hold no link at all (openat2's
// RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS; O_NOFOLLOW on the last part
// where the kernel lacks openat2): a swap fails the call instead of leading
// it, with this process's rights, out of the sandbox.
func (v *view) open(l located, flag int, perm os.FileMode) (*os.File, error) {
	if l.m.target == "/" {
		return os.OpenFile(l.host, flag|syscall.O_NOFOLLOW, perm)
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(l.path, l.m.target), "/")
	if rel == "" {
		rel = "."
	}
	f, err := openBeneath(l.m.source, rel, flag, perm)
	if errors.Is(err, errNoOpenat2) {
		return os.OpenFile(l.host, flag|syscall.O_NOFOLLOW, perm)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: l.path, Err: err}
	}
	return f, nil
}
