//go:build unix

package envd

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
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
	dir    string   // the sandbox's directory, which holds every source but /'s
	root   *os.Root // dir, opened: see inside
	// top is the sandbox's root directory (TopDir) where its processes
	// have it as their root (isolated sandboxes): what it holds beside
	// this machine's top-level entries (/workspace) is the sandbox's.
	// Empty otherwise.
	top string
	// machine are this machine's top-level names, read when the view is
	// made, as the box reads them when it boots: its box binds those, and
	// anything else at the top is the sandbox's.
	machine map[string]bool
	// box is the sandbox's root as its booted box has it, the sandbox's
	// layer over this machine's root (a root emulator's boxes): paths
	// at the top are reached there, so that the files API sees what the
	// sandbox wrote over this machine's files and writes where the
	// sandbox's processes see it. Nil before the box boots, and where it
	// lays none.
	box atomic.Pointer[boxRoot]
	// lowered is a clone's view whose own directories lie over its
	// snapshots' (Options.Lowers): they too are reached through the box.
	lowered bool
}

// boxRoot is a box's root, opened, and the path it was opened by, which
// names it among hosts' paths (/proc/PID/root): never shown.
type boxRoot struct {
	root *os.Root
	path string
}

// setBox makes the view reach this machine's top-level directories through
// the box's root.
func (v *view) setBox(root *os.Root, path string) {
	if old := v.box.Swap(&boxRoot{root: root, path: path}); old != nil {
		_ = old.root.Close()
	}
}

// TopDir is, in the sandbox's directory, what an isolated sandbox makes at
// the top of its tree (/workspace): its box's root (package jail), and
// under a root emulator the upper of its layer over this machine's root,
// which holds all it writes there. LayersDir holds what the box needs
// beside it (the layer's work directory; without a layer, the one over
// /usr that holds its sudo).
const (
	TopDir    = "top"
	LayersDir = "layers"
)

// alwaysHidden are this machine's directories the files API shows empty:
// a sandbox's /dev, /run and /proc are its own, and this machine's devices,
// sockets and processes are none of its business.
var alwaysHidden = []string{"/dev", "/run", "/proc"}

func newView(root string, hide []string, isolated, lowered bool) *view {
	v := &view{dir: root, lowered: lowered}
	if isolated {
		v.top = filepath.Join(root, TopDir)
		v.machine = map[string]bool{}
		entries, _ := os.ReadDir("/")
		for _, e := range entries {
			v.machine[e.Name()] = true
		}
	}
	// The sandbox's own directory is hidden whatever the caller hides: seen
	// through "/", its etc and its siblings are not the sandbox's files.
	// Each directory is hidden under its real path too, the one resolve
	// reaches through this machine's links (a state dir under macOS's
	// /var/folders is /private/var/folders), since hidden compares paths.
	for _, d := range append(append(append([]string{}, alwaysHidden...), root), hide...) {
		d = filepath.Clean(d)
		v.hide = append(v.hide, d)
		if resolved, err := filepath.EvalSymlinks(d); err == nil && resolved != d {
			v.hide = append(v.hide, resolved)
		}
	}
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
			if b := v.box.Load(); b != nil && v.lowered && m.writable {
				// The clone's directory as its box has it, over its
				// snapshots'.
				return b.path + p, mount{target: m.target, source: b.path + m.target, writable: true}
			}
			if m.target == "/" && p != "/" && v.top != "" {
				name, _, _ := strings.Cut(p[1:], "/")
				if b := v.box.Load(); b != nil && !slices.Contains(alwaysHidden, "/"+name) && name != "sys" {
					// The sandbox's root as its box has it: this
					// machine's directories under the sandbox's layer,
					// and its own beside them, whose files are the
					// layer's and are reached through it alone while
					// it is mounted (the box's own /dev, /run, /proc
					// and /sys stay out of the files API's sight).
					return b.path + p, mount{target: "/" + name, source: b.path + "/" + name, writable: true}
				}
				if !v.machine[name] {
					// The sandbox's own top-level entry, as its box
					// has it.
					return filepath.Join(v.top, filepath.FromSlash(p[1:])),
						mount{target: "/" + name, source: filepath.Join(v.top, name), writable: true}
				}
			}
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
	if root, rel, ok := v.inside(h); ok {
		return root.Lstat(rel)
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
	var entries []fs.DirEntry
	var err error
	if root, rel, ok := v.inside(h); ok {
		entries, err = fs.ReadDir(root.FS(), rel)
	} else {
		entries, err = os.ReadDir(h)
	}
	if p == "/" && v.top != "" {
		if b := v.box.Load(); b != nil {
			// The box's root lists the machine's entries its layer
			// keeps and the sandbox's own.
			return fs.ReadDir(b.root.FS(), ".")
		}
		entries = v.withTop(entries)
	}
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

// withTop adds to this machine's top-level entries the sandbox's own.
func (v *view) withTop(machine []fs.DirEntry) []fs.DirEntry {
	root, rel, ok := v.inside(v.top)
	if !ok {
		return machine
	}
	own, err := fs.ReadDir(root.FS(), filepath.ToSlash(rel))
	if err != nil {
		return machine
	}
	all := machine
	for _, e := range own {
		if !v.machine[e.Name()] {
			all = append(all, e)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name() < all[j].Name() })
	return all
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
		target, err := v.readlink(next)
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

// The sandbox's directories are reached through root, an os.Root of the
// sandbox's directory opened when the sandbox was made: no link below it
// can lead a call out of it (one a sandbox process swaps in between
// resolve and the call fails the call), and nothing above it is walked,
// so a call made with the sandbox user's rights (asUser) works although
// the emulator's state dir is private.

// inside says where h is below the sandbox's directory, or its box's
// root, if it is.
func (v *view) inside(h string) (*os.Root, string, bool) {
	if b := v.box.Load(); b != nil {
		if rel, ok := strings.CutPrefix(h, b.path+"/"); ok {
			return b.root, rel, true
		}
	}
	if v.root == nil {
		return nil, "", false
	}
	rel, err := filepath.Rel(v.dir, h)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return nil, "", false
	}
	return v.root, rel, true
}

// target is where the link p leads inside the view, and what is there;
// an error when it leads nowhere the view has (missing, a loop, hidden).
func (v *view) target(p string) (string, fs.FileInfo, error) {
	t, err := v.resolve(p, true)
	if err != nil {
		return "", nil, err
	}
	st, err := v.lstat(t)
	if err != nil {
		return "", nil, err
	}
	return t, st, nil
}

func (v *view) readlink(p string) (string, error) {
	h, _ := v.host(p)
	if root, rel, ok := v.inside(h); ok {
		return root.Readlink(rel)
	}
	return os.Readlink(h)
}

// open opens the resolved l.
func (v *view) open(l located, flag int, perm os.FileMode) (*os.File, error) {
	if root, rel, ok := v.inside(l.host); ok {
		f, err := root.OpenFile(rel, flag|syscall.O_NOFOLLOW, perm)
		return f, renamed(err, l.path)
	}
	f, err := os.OpenFile(l.host, flag|syscall.O_NOFOLLOW, perm)
	return f, renamed(err, l.path)
}

// mkdir makes the one directory p, in the sandbox's directories only.
func (v *view) mkdir(p string) error {
	h, m := v.host(p)
	root, rel, ok := v.inside(h)
	if !ok || !m.writable {
		return &fs.PathError{Op: "mkdir", Path: p, Err: fs.ErrPermission}
	}
	err := root.Mkdir(rel, 0o755)
	if err == nil {
		// envd's mkdir is 0755 less its umask, 022, in a sandbox: not
		// this machine's umask.
		err = root.Chmod(rel, 0o755)
	}
	return renamed(err, p)
}

// rename moves src to dst, both in the sandbox's directories.
func (v *view) rename(src, dst located) error {
	rs, relS, ok1 := v.inside(src.host)
	rd, relD, ok2 := v.inside(dst.host)
	if !ok1 || !ok2 {
		return &fs.PathError{Op: "rename", Path: src.path, Err: fs.ErrPermission}
	}
	if rs != rd {
		// From the sandbox's directories to a layer over this machine's,
		// or back: two file systems, as a rename across mounts finds.
		return &os.LinkError{Op: "rename", Old: src.path, New: dst.path, Err: syscall.EXDEV}
	}
	return renamed(rs.Rename(relS, relD), dst.path)
}

// removeAll removes l.path and what is in it.
func (v *view) removeAll(l located) error {
	root, rel, ok := v.inside(l.host)
	if !ok {
		return &fs.PathError{Op: "remove", Path: l.path, Err: fs.ErrPermission}
	}
	return renamed(root.RemoveAll(rel), l.path)
}

// renamed names the sandbox's path in a path error, never this machine's.
func renamed(err error, p string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: le.Op, Path: p, Err: le.Err}
	}
	return err
}
