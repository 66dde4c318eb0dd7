//go:build linux

package envd

import (
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The count of a sandbox's bytes is bounded, so that a huge tree cannot
// hold an answer up: past these, what was counted so far is the answer.
const (
	diskEntries = 200_000
	diskTime    = 250 * time.Millisecond
	diskDepth   = 128 // a directory open per level
)

// diskUsage is what the sandbox's own directories (Writable, and TopDir
// and LayersDir where it has them) hold on disk,
// as du counts it (blocks allocated, a file with several links once), and
// the size of the file system that holds them, as envd's disk_total is
// its root file system's.
func (s *Server) diskUsage() (used, total uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(s.opts.Root, &st); err != nil {
		return 0, 0, err
	}
	total = st.Blocks * uint64(st.Bsize)
	root, err := unix.Open(s.opts.Root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, err
	}
	defer func() { _ = unix.Close(root) }()
	w := &diskWalk{deadline: time.Now().Add(diskTime), seen: map[[2]uint64]bool{}}
	dirs := make([]string, 0, len(Writable)+1)
	for _, d := range Writable {
		dirs = append(dirs, strings.TrimPrefix(d, "/"))
	}
	if s.view.top != "" {
		// Its root, and what it wrote over this machine's directories.
		dirs = append(dirs, TopDir, LayersDir)
	}
	for _, d := range dirs {
		if fd, ok := openBelow(root, d); ok {
			var self unix.Stat_t
			if unix.Fstat(fd, &self) == nil {
				w.count(&self)
			}
			w.dir(fd, 0)
		}
	}
	return w.bytes, total, nil
}

// openBelow opens the directory rel (slash-separated) under the directory
// dir, entering no link: a link the sandbox put in place of one of its
// directories leads the count nowhere.
func openBelow(dir int, rel string) (int, bool) {
	fd, err := unix.Dup(dir)
	if err != nil {
		return -1, false
	}
	for _, name := range strings.Split(rel, "/") {
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		_ = unix.Close(fd)
		if err != nil {
			return -1, false
		}
		fd = next
	}
	return fd, true
}

// diskWalk counts the blocks of a tree, by descriptors relative to each
// directory: it never follows a link, whatever the sandbox renames
// meanwhile.
type diskWalk struct {
	bytes    uint64
	entries  int
	deadline time.Time
	seen     map[[2]uint64]bool // files with several links, counted once
}

// done says the bounds are reached.
func (w *diskWalk) done() bool {
	if w.entries >= diskEntries {
		return true
	}
	if w.entries%1024 == 0 && time.Now().After(w.deadline) {
		w.entries = diskEntries // stays done without asking the clock again
		return true
	}
	return false
}

func (w *diskWalk) count(st *unix.Stat_t) {
	w.entries++
	if st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Nlink > 1 {
		key := [2]uint64{st.Dev, st.Ino}
		if w.seen[key] {
			return
		}
		w.seen[key] = true
	}
	w.bytes += uint64(st.Blocks) * 512
}

// dir counts what the directory fd holds, and closes it.
func (w *diskWalk) dir(fd, depth int) {
	f := os.NewFile(uintptr(fd), "")
	defer func() { _ = f.Close() }()
	for !w.done() {
		names, err := f.Readdirnames(256)
		for _, name := range names {
			if w.done() {
				return
			}
			var st unix.Stat_t
			if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue // gone meanwhile
			}
			w.count(&st)
			if st.Mode&unix.S_IFMT != unix.S_IFDIR || depth+1 >= diskDepth {
				continue
			}
			if sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
				w.dir(sub, depth+1)
			}
		}
		if err != nil { // the end, or a directory that cannot be read
			return
		}
	}
}
