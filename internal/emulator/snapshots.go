//go:build unix

package emulator

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/emulator/envd"
	"github.com/abx-dev/abx/internal/provider"
)

// snapshotStore keeps the emulator's snapshots (manager.SnapshotStore):
// each a directory of the state dir's snapshots/, a copy of the sandbox's
// directory taken while its processes are frozen, so that it is of one
// moment: its own directories (/home/user, /tmp, /var/tmp, /root) and its
// root's layer (top: /workspace, /usr/local, ...), the work directories of
// its layers apart (docs/snapshots.md).
//
// A clone of an isolated emulator stands on its snapshot: its directory
// starts empty, and lists in lowersFile the snapshots beneath it, the
// nearest first, whose directories its box lays its own over
// (jail.BoxSpec.Lowers); so a clone costs the same whatever its snapshot
// holds. A snapshot of a clone copies the clone's own directory, its
// lowersFile with it: it stands on the same snapshots. A snapshot deleted
// is marked (droppedFile) and its files go once nothing stands on them.
// Without isolation there are no layers, and a clone is a copy.
type snapshotStore struct {
	g   *Gateway
	dir string

	mu sync.Mutex // one collect at a time
}

const (
	lowersFile  = "lowers"
	droppedFile = "dropped"
)

// Take copies the sandbox's directory into the snapshot's.
func (s *snapshotStore) Take(sandboxID, snapshotID string) error {
	e := s.g.Envd(sandboxID)
	if e == nil {
		return errors.New("the sandbox is gone")
	}
	e.Pause()
	defer e.Resume()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	dst := filepath.Join(s.dir, snapshotID)
	part := dst + ".part"
	_ = os.RemoveAll(part)
	if err := copyTree(filepath.Join(s.g.dir, sandboxID), part, envd.LayersDir); err != nil {
		_ = os.RemoveAll(part)
		return fmt.Errorf("the sandbox's files: %w", err)
	}
	return os.Rename(part, dst)
}

// Clone makes a sandbox's directory from a snapshot's, before the sandbox
// is made: layered over it where boxes lay layers, else a copy of it.
func (s *snapshotStore) Clone(snapshotID, sandboxID string) error {
	src := filepath.Join(s.dir, snapshotID)
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("the snapshot's files: %w", err)
	}
	dst := filepath.Join(s.g.dir, sandboxID)
	_ = os.RemoveAll(dst)
	if err := os.MkdirAll(s.g.dir, 0o700); err != nil {
		return err
	}
	if s.g.Isolated {
		chain := append([]string{snapshotID}, readLowers(src)...)
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
		// Its top is a copy: the box's layer over this machine's root
		// takes no lower inside that root (docs/snapshots.md).
		if _, err := os.Stat(filepath.Join(src, envd.TopDir)); err == nil {
			if err := copyDir(filepath.Join(src, envd.TopDir), filepath.Join(dst, envd.TopDir)); err != nil {
				_ = os.RemoveAll(dst)
				return fmt.Errorf("the snapshot's files: %w", err)
			}
		}
		return os.WriteFile(filepath.Join(dst, lowersFile), []byte(strings.Join(chain, "\n")+"\n"), 0o600)
	}
	if err := copyTree(src, dst, ""); err != nil {
		_ = os.RemoveAll(dst)
		return fmt.Errorf("the snapshot's files: %w", err)
	}
	return nil
}

// lowers are the directories of the snapshots a sandbox stands on, the
// nearest first (none for a sandbox made from a template).
func (s *snapshotStore) lowers(sandboxID string) []string {
	ids := readLowers(filepath.Join(s.g.dir, sandboxID))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, filepath.Join(s.dir, id))
	}
	return out
}

// readLowers reads dir's lowersFile: snapshot IDs, the nearest first.
func readLowers(dir string) []string {
	b, err := os.ReadFile(filepath.Join(dir, lowersFile))
	if err != nil {
		return nil
	}
	var ids []string
	for _, l := range strings.Split(string(b), "\n") {
		// An ID as the manager makes them: never a path.
		if l = strings.TrimSpace(l); l != "" && provider.CheckSnapshotID(l) == nil {
			ids = append(ids, l)
		}
	}
	return ids
}

// Drop marks a snapshot deleted; its files go once nothing stands on
// them.
func (s *snapshotStore) Drop(snapshotID string) {
	dir := filepath.Join(s.dir, snapshotID)
	if _, err := os.Stat(dir); err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, droppedFile), nil, 0o600)
	go s.collect()
}

// collect removes the files of the snapshots deleted that no sandbox and
// no kept snapshot stands on (each lists every snapshot beneath it).
func (s *snapshotStore) collect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	used := map[string]bool{}
	sandboxes, _ := os.ReadDir(s.g.dir)
	for _, e := range sandboxes {
		for _, id := range readLowers(filepath.Join(s.g.dir, e.Name())) {
			used[id] = true
		}
	}
	snaps, _ := os.ReadDir(s.dir)
	var dropped []string
	for _, e := range snaps {
		dir := filepath.Join(s.dir, e.Name())
		if _, err := os.Stat(filepath.Join(dir, droppedFile)); err == nil {
			dropped = append(dropped, e.Name())
			continue
		}
		for _, id := range readLowers(dir) {
			used[id] = true
		}
	}
	for _, id := range dropped {
		if !used[id] {
			_ = os.RemoveAll(filepath.Join(s.dir, id))
		}
	}
}

// copyTree copies the directory src to dst (which must not exist), all
// but its entry named skip, as cp -a does (owners, modes, times, links,
// extended attributes, an overlay's whiteouts), where this machine's
// file system can, sharing blocks rather than copying them (a reflink).
func copyTree(src, dst, skip string) error {
	if err := os.Mkdir(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	var args []string
	n := 0
	for _, e := range entries {
		if e.Name() != skip {
			args = append(args, filepath.Join(src, e.Name()))
		}
	}
	if len(args) > n {
		if err := cp(append(args[n:], dst+"/")...); err != nil {
			return err
		}
	}
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.Chmod(dst, st.Mode().Perm())
}

// cp runs cp -a (sharing blocks where it can) with args, the last the
// destination.
func cp(args ...string) error {
	flags := []string{"-a"}
	if runtime.GOOS == "linux" {
		flags = append(flags, "--reflink=auto")
	}
	if out, err := exec.Command("cp", append(flags, args...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("cp: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// copyDir copies the directory src to dst (which must not exist) in this
// process, as cp -a does: owners, modes, times, links, extended attributes
// and an overlay's whiteouts (character devices 0/0). It is for small
// trees (a clone's top), where starting cp would cost more than the copy.
// What it cannot make (another device, a fifo) is left out.
func copyDir(src, dst string) error {
	// A directory gets its mode and times once what is in it is made:
	// a read-only one would refuse its entries, and each would move its
	// time.
	type dir struct {
		from, to string
		st       fs.FileInfo
		sys      *syscall.Stat_t
	}
	var dirs []dir
	err := filepath.WalkDir(src, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sys, _ := st.Sys().(*syscall.Stat_t)
		switch m := st.Mode(); {
		case m.IsDir():
			if err := os.Mkdir(to, 0o700); err != nil {
				return err
			}
			dirs = append(dirs, dir{p, to, st, sys})
			return nil
		case m.IsRegular():
			if err := copyFile(p, to); err != nil {
				return err
			}
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
		case m&fs.ModeCharDevice != 0 && sys != nil && sys.Rdev == 0:
			// An overlay's whiteout: the file removed.
			if err := unix.Mknod(to, unix.S_IFCHR|uint32(m.Perm()), 0); err != nil {
				return err
			}
		default:
			return nil
		}
		return keepAttrs(p, to, st, sys)
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := keepAttrs(dirs[i].from, dirs[i].to, dirs[i].st, dirs[i].sys); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies a regular file's bytes (the kernel's copy where it can).
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// keepAttrs gives dst src's extended attributes, owner, mode and times.
func keepAttrs(src, dst string, st fs.FileInfo, sys *syscall.Stat_t) error {
	if err := copyXattrs(src, dst); err != nil {
		return err
	}
	if sys != nil {
		if err := os.Lchown(dst, int(sys.Uid), int(sys.Gid)); err != nil && os.Geteuid() == 0 {
			return err
		}
	}
	if st.Mode()&fs.ModeSymlink == 0 {
		if err := os.Chmod(dst, st.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err != nil {
			return err
		}
	}
	ts := []unix.Timespec{unix.NsecToTimespec(st.ModTime().UnixNano()), unix.NsecToTimespec(st.ModTime().UnixNano())}
	return unix.UtimesNanoAt(unix.AT_FDCWD, dst, ts, unix.AT_SYMLINK_NOFOLLOW)
}
