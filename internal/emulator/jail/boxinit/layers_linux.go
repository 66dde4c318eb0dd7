//go:build linux

package boxinit

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// A root emulator's box lays one layer of the sandbox's own over this
// machine's root (BoxSpec.IDMap): an overlay whose lower is this
// machine's root file system seen through an idmapped mount, where what
// this machine's root owns is the sandbox root's (BoxSpec.RootID), and
// whose upper is the box's top, the sandbox's own directory, which takes
// everything the sandbox writes outside its binds: /workspace as
// /usr/local/bin/tool. The merged root is top's, as a box's root without
// a layer is: what the sandbox makes at the top of its tree is its own. So the sandbox's root may write anywhere in its
// root, as a container's may, its user where the modes say, and nothing
// reaches this machine's files. What is mounted below this machine's
// root (outside the directories a box has of its own) is bound over the
// layer read-only, idmapped where its file system takes it. An
// unprivileged emulator cannot: no user namespace of a user's maps this
// machine's root, and its boxes bind this machine's directories
// read-only.
//
// One overlay, where a layer over each top-level directory took a dozen:
// each mount, its idmapped lower and its directories cost about 1.5 ms
// of a box's start (docs/performance.md).

// layRoot lays the sandbox's layer over this machine's root at top, whose
// work directory is in layers, and binds what is mounted below this
// machine's root over it, except below the directories the box has of its
// own and those it hides. It reports whether it did; where it could not
// (a kernel or file system that takes no idmapping or no layer given by
// descriptor), nothing of it is left, and the box binds this machine's
// directories instead.
func layRoot(top, layers string, hide []string) bool {
	if layers == "" || strings.ContainsAny(layers, ",:\\") {
		return false
	}
	work := layers + "/work"
	if err := os.MkdirAll(work, 0o700); err != nil {
		return false
	}
	// What is mounted below, copied before the layer is: a copy made
	// after it would hold the layer too wherever top lies below one.
	subs, err := submounts(hide)
	if err != nil {
		return false
	}
	defer func() {
		for _, s := range subs {
			_ = unix.Close(s.fd)
		}
	}()
	lower, err := unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return false
	}
	defer func() { _ = unix.Close(lower) }()
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_RDONLY, Userns_fd: FDIDMap}
	if unix.MountSetattr(lower, "", unix.AT_EMPTY_PATH, &attr) != nil {
		return false
	}
	fs, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return false
	}
	defer func() { _ = unix.Close(fs) }()
	if unix.FsconfigSetFd(fs, "lowerdir+", lower) != nil ||
		unix.FsconfigSetString(fs, "upperdir", top) != nil ||
		unix.FsconfigSetString(fs, "workdir", work) != nil ||
		unix.FsconfigCreate(fs) != nil {
		return false
	}
	merged, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer func() { _ = unix.Close(merged) }()
	if unix.MoveMount(merged, "", unix.AT_FDCWD, top, unix.MOVE_MOUNT_F_EMPTY_PATH) != nil {
		return false
	}
	for _, s := range subs {
		// Where the layer has no mount point (the sandbox removed it),
		// it stays out of the sandbox's sight.
		_ = unix.MoveMount(s.fd, "", unix.AT_FDCWD, top+s.at, unix.MOVE_MOUNT_F_EMPTY_PATH)
	}
	return true
}

// submount is a copy of what is mounted at a place below this machine's
// root, read-only, not yet mounted anywhere.
type submount struct {
	at string
	fd int
}

// submounts copies each outermost mount below this machine's root, with
// what is mounted below it, except below a box's own directories and
// hide.
func submounts(hide []string) ([]submount, error) {
	mounts, err := mountPoints()
	if err != nil {
		return nil, err
	}
	slices.Sort(mounts)
	var out []submount
	var taken []string
	for _, mp := range mounts {
		if mp == "/" || !path.IsAbs(mp) || path.Clean(mp) != mp || under(mp, taken) || under(mp, hide) {
			continue
		}
		if name, _, _ := strings.Cut(mp[1:], "/"); ownTop[name] {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, mp, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			continue // gone since it was read, or not this user's to see
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_RDONLY, Userns_fd: FDIDMap}
		if unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr) != nil {
			attr.Attr_set, attr.Userns_fd = unix.MOUNT_ATTR_RDONLY, 0
			if unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr) != nil {
				_ = unix.Close(fd)
				continue
			}
		}
		out = append(out, submount{at: mp, fd: fd})
		taken = append(taken, mp)
	}
	return out, nil
}

// lowersOf are the directories rel of a clone's snapshots that exist, the
// nearest first.
func lowersOf(snapshots []string, rel string) []string {
	var out []string
	for _, s := range snapshots {
		if st, err := os.Stat(s + "/" + rel); err == nil && st.IsDir() {
			out = append(out, s+"/"+rel)
		}
	}
	return out
}

// layer is a clone's directory laid over the same directory (name) of
// its snapshots, the nearest first; its overlay's work directory is in
// layers (work-NAME). In a user namespace of a user's the overlay keeps
// its marks in user.* attributes (userxattr).
type layer struct {
	lowers       []string
	layers, name string
	realRoot     bool
}

// mount mounts at target an overlay whose upper is upper (a descriptor's
// /proc/self/fd path: what was opened before anything was covered) over
// the lowers; without lowers (none of the snapshots has the directory) it
// binds upper there.
func (l *layer) mount(target, upper string) error {
	if len(l.lowers) == 0 {
		return unix.Mount(upper, target, "", unix.MS_BIND, "")
	}
	work := l.layers + "/work-" + strings.ReplaceAll(l.name, "/", "-")
	for _, p := range append([]string{work, upper}, l.lowers...) {
		if strings.ContainsAny(p, ",:\\") {
			return fmt.Errorf("a path an overlay's options cannot carry: %q", p)
		}
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	opts := "lowerdir=" + strings.Join(l.lowers, ":") + ",upperdir=" + upper + ",workdir=" + work
	if !l.realRoot {
		opts += ",userxattr"
	}
	return unix.Mount("overlay", target, "overlay", 0, opts)
}
