//go:build linux

package boxinit

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// A root emulator's box lays a layer of the sandbox's own over each of
// this machine's top-level directories (BoxSpec.IDMap): an overlay whose
// lower is this machine's directory seen through an idmapped mount, where
// what this machine's root owns is the sandbox root's (BoxSpec.RootID), and
// whose upper, in the sandbox's layers, takes what the sandbox writes. So
// the sandbox's root may write anywhere in its root, as a container's may,
// its user where the modes say, and nothing reaches this machine's
// directories. An unprivileged emulator cannot: no user namespace of a
// user's maps this machine's root, and its boxes bind these directories
// read-only.

// layOver lays the sandbox's layer over this machine's /name at dst. It
// reports whether it did; where it could not (a file system that takes no
// idmapping, a path an overlay's options cannot carry), dst is left for a
// read-only bind.
func layOver(name, dst, layers string, rootID int) bool {
	if layers == "" || strings.ContainsAny(layers+name, ",:\\") {
		return false
	}
	base := layers + "/" + name
	lower, upper, work := base+"/lower", base+"/upper", base+"/work"
	for _, d := range []string{lower, upper, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return false
		}
	}
	st, err := os.Stat("/" + name)
	if err != nil {
		return false
	}
	// The merged directory takes its upper's owner and mode.
	if os.Chown(upper, rootID, rootID) != nil || os.Chmod(upper, st.Mode().Perm()) != nil {
		return false
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, "/"+name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return false
	}
	defer func() { _ = unix.Close(fd) }()
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_RDONLY, Userns_fd: FDIDMap}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return false
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, lower, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return false
	}
	if err := unix.Mount("overlay", dst, "overlay", 0, "lowerdir="+lower+",upperdir="+upper+",workdir="+work); err != nil {
		_ = unix.Unmount(lower, unix.MNT_DETACH)
		return false
	}
	// An overlay's lower is one file system: what is mounted below this
	// machine's directory is bound again over the layer, read-only.
	if err := bindSubmounts(lower, dst); err != nil {
		_ = unix.Unmount(dst, unix.MNT_DETACH)
		_ = unix.Unmount(lower, unix.MNT_DETACH)
		return false
	}
	return true
}

// bindSubmounts binds each mount below lower at its place below dst.
func bindSubmounts(lower, dst string) error {
	mounts, err := mountPoints()
	if err != nil {
		return err
	}
	for _, mp := range mounts {
		rel, ok := strings.CutPrefix(mp, lower+"/")
		if !ok {
			continue
		}
		if err := unix.Mount(mp, dst+"/"+rel, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", mp, err)
		}
	}
	return nil
}
