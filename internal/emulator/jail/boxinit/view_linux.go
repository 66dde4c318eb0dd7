//go:build linux

package boxinit

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Devices a sandbox gets in its /dev; the host's others stay out of reach.
var devices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// procMasked are the parts of /proc that change the machine, not the
// process: read-only inside, as container runtimes make them.
var procMasked = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"}

// setup builds the view in the init's mount namespace:
//  1. nothing done here reaches the host's namespace (private mounts);
//     a network of its own has its loopback up;
//  2. a /proc of the box's own PID namespace: ps in a sandbox sees its
//     own processes, as in a real one; with a network of its own, a /sys
//     that lists its interfaces;
//  3. an empty /home, then the binds (the sandbox's own directories);
//  4. the emulator's state covered, a minimal /dev;
//  5. every mount that was there before made read-only;
//  6. / as the working directory.
func setup(spec BoxSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	if spec.OwnNetwork {
		if err := loopbackUp(); err != nil {
			return err
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("the box's /proc: %w", err)
	}
	if spec.OwnNetwork {
		// The machine's /sys lists the machine's interfaces: a sysfs
		// mounted here lists the box's.
		if err := unix.Mount("sysfs", "/sys", "sysfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("the box's /sys: %w", err)
		}
	}
	before, err := mountPoints()
	if err != nil {
		return err
	}
	// Everything bound is opened before anything is covered: a source
	// may lie under another bind's target.
	sources := make([]string, len(spec.Binds))
	var opened []int
	defer func() {
		for _, fd := range opened {
			_ = unix.Close(fd)
		}
	}()
	for i, b := range spec.Binds {
		fd, err := unix.Open(b.Source, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", b.Source, err)
		}
		opened = append(opened, fd)
		sources[i] = fmt.Sprintf("/proc/self/fd/%d", fd)
	}
	devs := map[string]int{}
	for _, name := range devices {
		fd, err := unix.Open("/dev/"+name, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == nil {
			devs[name] = fd
		}
	}
	if err := mountTmpfs("/home", "mode=755"); err != nil {
		return err
	}
	var covered []string // targets whose old contents are out of sight
	for i, b := range spec.Binds {
		if err := bindOne(b, sources[i]); err != nil {
			return err
		}
		covered = append(covered, b.Target)
	}
	if err := remountRO("/home"); err != nil {
		return err
	}
	covered = append(covered, "/home")
	// /run holds the machine's sockets (docker's, the session bus): a
	// socket on a read-only mount still connects, so it is emptied.
	if st, err := os.Stat("/run"); err == nil && st.IsDir() && !under("/run", covered) {
		if err := mountTmpfs("/run", "mode=755"); err != nil {
			return err
		}
		if err := remountRO("/run"); err != nil {
			return err
		}
		covered = append(covered, "/run")
	}
	for _, h := range spec.Hide {
		if under(h, covered) {
			continue
		}
		switch err := mountTmpfs(h, "mode=755"); {
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT):
			// Out of the sandbox's reach already.
		case err != nil:
			return err
		default:
			if err := remountRO(h); err != nil {
				return err
			}
			covered = append(covered, h)
		}
	}
	if err := setupDev(devs); err != nil {
		return err
	}
	covered = append(covered, "/dev")
	for _, p := range procMasked {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			continue // not on this kernel
		}
		if err := remountRO(p); err != nil {
			return err
		}
	}
	for _, mp := range before {
		if under(mp, covered) || mp == "/proc" {
			// /proc stays writable for the init: it writes the command's
			// uid_map there.
			continue
		}
		switch err := remountRO(mp); {
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL):
			// Unreachable for the sandbox too, or gone since it was read.
		case err != nil:
			return err
		}
	}
	return unix.Chdir("/")
}

// bindOne mounts the source descriptor path at b.Target, making the
// mount point where it is missing (only possible on the new /home).
func bindOne(b Bind, source string) error {
	if _, err := os.Lstat(b.Target); errors.Is(err, os.ErrNotExist) {
		st, serr := os.Stat(source)
		if serr != nil {
			return serr
		}
		if st.IsDir() {
			err = os.MkdirAll(b.Target, 0o755)
		} else {
			err = os.WriteFile(b.Target, nil, 0o644)
		}
		if err != nil {
			return fmt.Errorf("mount point %s: %w", b.Target, err)
		}
	}
	if err := unix.Mount(source, b.Target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s: %w", b.Target, err)
	}
	if b.ReadOnly {
		return remountRO(b.Target)
	}
	return nil
}

// setupDev replaces /dev with a small one: the harmless devices, a pty
// instance of the sandbox's own and a shared-memory directory.
func setupDev(devs map[string]int) error {
	if err := mountTmpfs("/dev", "mode=755"); err != nil {
		return err
	}
	for name, fd := range devs {
		p := "/dev/" + name
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			return err
		}
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		_ = unix.Close(fd)
	}
	for link, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"} {
		if err := os.Symlink(target, "/dev/"+link); err != nil {
			return err
		}
	}
	if err := os.Mkdir("/dev/pts", 0o755); err != nil {
		return err
	}
	// Without a pty instance of its own a sandbox just has no ptys.
	_ = unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := os.Mkdir("/dev/shm", 0o755); err != nil {
		return err
	}
	if err := mountTmpfs("/dev/shm", "mode=1777"); err != nil {
		return err
	}
	return remountRO("/dev")
}

func mountTmpfs(target, opts string) error {
	if err := unix.Mount("tmpfs", target, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("tmpfs on %s: %w", target, err)
	}
	return nil
}

// remountRO makes the mount at p read-only, keeping the flags a user
// namespace may not drop (nosuid, nodev, noexec, atime).
func remountRO(p string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for stFlag, msFlag := range map[int64]uintptr{
		unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME,
	} {
		if st.Flags&stFlag != 0 {
			flags |= msFlag
		}
	}
	if err := unix.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("read-only %s: %w", p, err)
	}
	return nil
}

// mountPoints lists this namespace's mount points, each once.
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	seen := map[string]bool{}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeOctal(fields[4])
		if !seen[mp] {
			seen[mp] = true
			out = append(out, mp)
		}
	}
	return out, sc.Err()
}

// unescapeOctal undoes mountinfo's \040-style escapes.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// under reports whether p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	p = path.Clean(p)
	for _, d := range dirs {
		d = path.Clean(d)
		if p == d || strings.HasPrefix(p, d+"/") || d == "/" {
			return true
		}
	}
	return false
}
