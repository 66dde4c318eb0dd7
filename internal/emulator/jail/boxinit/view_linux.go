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

// setup builds the box's root and makes it the init's, in the init's
// mount namespace (nothing done here reaches the host's: private mounts):
//  1. Top, a directory of the sandbox's own, becomes the root: what the
//     sandbox makes at the top of its tree (/workspace) is its own;
//  2. each of this machine's top-level directories is bound there,
//     read-only, with what is mounted below it; its links are copied;
//  3. a /proc of the box's own PID namespace (ps in a sandbox sees its own
//     processes, as in a real one); /sys, this machine's, read-only, or
//     with a network of its own a sysfs that lists its interfaces (the
//     loopback, brought up);
//  4. a minimal /dev, an empty /run, an empty /home, then the binds (the
//     sandbox's own directories);
//  5. the emulator's state covered where a bound directory shows it;
//  6. the root pivoted to Top, and / the working directory.
//
// It returns the box's sudo socket (SudoSocket), or nil where the box has
// no sudo (its /usr could not be laid over).
func setup(spec BoxSpec) (*os.File, error) {
	r := &boxRoot{spec: spec}
	if err := r.build(); err != nil {
		if r.sudo != nil {
			_ = r.sudo.Close()
		}
		return nil, err
	}
	return r.sudo, nil
}

// boxRoot is a box's root being built, and what building it opened.
type boxRoot struct {
	spec BoxSpec
	sudo *os.File
}

func (r *boxRoot) build() error {
	spec := r.spec
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	if spec.OwnNetwork {
		if err := loopbackUp(); err != nil {
			return err
		}
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
	top := path.Clean(spec.Top)
	if spec.Top == "" || top == "/" {
		return errors.New("the box has no root of its own")
	}
	var hasSudo bool
	if spec.IDMap && layRoot(top, spec.Layers, spec.Hide) {
		hasSudo = bindSudo(top + "/usr")
	} else {
		// pivot_root needs the new root to be a mount.
		if err := unix.Mount(top, top, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("the box's root: %w", err)
		}
		var err error
		if hasSudo, err = bindMachine(top, spec.Layers); err != nil {
			return err
		}
	}
	if err := mountSys(top, spec.OwnNetwork); err != nil {
		return err
	}
	// What was bound from this machine is read-only, every mount of it.
	mounts, err := mountPoints()
	if err != nil {
		return err
	}
	for _, mp := range mounts {
		if mp == top || !under(mp, []string{top}) {
			continue
		}
		switch err := remountRO(mp); {
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL):
			// Unreachable for the sandbox too, or gone since it was read.
		case err != nil:
			return err
		}
	}
	for _, d := range []string{"proc", "dev", "run", "home", "tmp", "root"} {
		if err := os.Mkdir(top+"/"+d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("the box's /%s: %w", d, err)
		}
	}
	if err := unix.Mount("proc", top+"/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("the box's /proc: %w", err)
	}
	if err := mountTmpfs(top+"/home", "mode=755"); err != nil {
		return err
	}
	own := path.Dir(top)
	for i, b := range spec.Binds {
		var over *layer
		if rel, ok := strings.CutPrefix(path.Clean(b.Source), own+"/"); ok && len(spec.Lowers) > 0 && !b.ReadOnly {
			// A clone's own directory, over its snapshots'.
			over = &layer{lowers: lowersOf(spec.Lowers, rel), layers: spec.Layers, name: rel, realRoot: spec.IDMap}
		}
		if err := bindOne(top, b, sources[i], over); err != nil {
			return err
		}
	}
	if err := remountRO(top + "/home"); err != nil {
		return err
	}
	// /run holds the machine's sockets (docker's, the session bus): the
	// box's is empty.
	if err := mountTmpfs(top+"/run", "mode=755"); err != nil {
		return err
	}
	if hasSudo {
		// Without its socket the box has no sudo, and says so when
		// sudo runs; the rest of the box works.
		if sudo, err := listenSudo(top); err == nil {
			r.sudo = sudo
		}
	}
	if err := remountRO(top + "/run"); err != nil {
		return err
	}
	for _, h := range spec.Hide {
		switch err := mountTmpfs(top+path.Clean(h), "mode=755"); {
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR):
			// Out of the sandbox's sight already: not in the box's tree.
		case err != nil:
			return err
		default:
			if err := remountRO(top + path.Clean(h)); err != nil {
				return err
			}
		}
	}
	if err := setupDev(top+"/dev", devs); err != nil {
		return err
	}
	for _, p := range procMasked {
		p = top + p
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			continue // not on this kernel
		}
		if err := remountRO(p); err != nil {
			return err
		}
	}
	// The old root goes: stacked under the new one, then detached.
	if err := unix.Chdir(top); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return fmt.Errorf("pivot to the box's root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("the machine's root: %w", err)
	}
	return unix.Chdir("/")
}

// ownTop are the top-level directories a box has of its own, never this
// machine's.
var ownTop = map[string]bool{"proc": true, "sys": true, "dev": true, "run": true, "home": true, "tmp": true, "root": true}

// bindMachine puts this machine's top-level directories (and files) in
// top, each bound with what is mounted below it, and copies its top-level
// links. Where top holds something else of that name (the sandbox made it
// before the machine had it), the sandbox's stays. It tells whether /usr
// got the box's layer, and with it the box's sudo.
func bindMachine(top, layers string) (hasSudo bool, err error) {
	entries, err := os.ReadDir("/")
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		name := e.Name()
		if ownTop[name] {
			continue
		}
		src, dst := "/"+name, top+"/"+name
		st, err := os.Lstat(src)
		if err != nil {
			continue // gone since it was listed
		}
		have, herr := os.Lstat(dst)
		switch {
		case st.Mode()&os.ModeSymlink != 0:
			if herr == nil {
				continue
			}
			target, err := os.Readlink(src)
			if err != nil {
				return false, err
			}
			if err := os.Symlink(target, dst); err != nil {
				return false, fmt.Errorf("the box's /%s: %w", name, err)
			}
			continue
		case st.IsDir():
			if herr == nil && !have.IsDir() {
				continue
			}
			if herr != nil {
				if err := os.Mkdir(dst, 0o755); err != nil {
					return false, fmt.Errorf("the box's /%s: %w", name, err)
				}
			}
			if name == "usr" && layUsr(dst, layers) {
				hasSudo = true
				continue
			}
		case st.Mode().IsRegular():
			if herr == nil && !have.Mode().IsRegular() {
				continue
			}
			if herr != nil {
				if err := os.WriteFile(dst, nil, 0o644); err != nil {
					return false, fmt.Errorf("the box's /%s: %w", name, err)
				}
			}
		default:
			continue
		}
		switch err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); {
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
			// Not this user's to see: not the sandbox's either.
		case err != nil:
			return false, fmt.Errorf("bind /%s: %w", name, err)
		}
	}
	return hasSudo, nil
}

// layUsr lays the box's own layer over this machine's /usr at dst: an
// overlay whose upper directory, in layers, holds the box's sudo (this
// binary, bound over an empty file there; where the binary was replaced
// since it started, there is no sudo). Where the overlay cannot be
// made (a file system that does not take it, a path its options cannot
// carry), it reports false and /usr is bound as the rest, without sudo.
// (An overlay's lower is one file system: what is mounted below this
// machine's /usr, rarely anything, is not in it.)
func layUsr(dst, layers string) bool {
	if layers == "" || strings.ContainsAny(layers, ",:\\") {
		return false
	}
	upper, work := layers+"/usr/upper", layers+"/usr/work"
	for _, d := range []string{upper + "/bin", work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return false
		}
	}
	sudo := upper + "/bin/sudo"
	if !isFile(sudo) {
		if err := os.WriteFile(sudo, nil, 0o755); err != nil {
			return false
		}
	}
	if err := unix.Mount("overlay", dst, "overlay", 0, "lowerdir=/usr,upperdir="+upper+",workdir="+work); err != nil {
		return false
	}
	if !bindSudo(dst) {
		_ = unix.Unmount(dst, unix.MNT_DETACH)
		return false
	}
	return true
}

// bindSudo binds this binary at bin/sudo of the box's /usr, dst, a layer
// of the box's own (where the file is not there, it is made in the
// layer).
func bindSudo(dst string) bool {
	// By its path: the binary's mount as this namespace has it (the
	// magic link leads to the emulator's namespace's, which cannot be
	// bound here).
	self, err := os.Readlink("/proc/self/exe")
	if err != nil || !path.IsAbs(self) || !isFile(self) {
		return false
	}
	sudo := dst + "/bin/sudo"
	if !isFile(sudo) {
		if err := os.WriteFile(sudo, nil, 0o755); err != nil {
			return false
		}
	}
	return unix.Mount(self, sudo, "", unix.MS_BIND, "") == nil
}

// isFile tells whether p is a regular file.
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// mountSys gives the box its /sys: this machine's, or a sysfs that lists
// the interfaces of a network of its own.
func mountSys(top string, ownNetwork bool) error {
	dst := top + "/sys"
	if err := os.Mkdir(dst, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("the box's /sys: %w", err)
	}
	if ownNetwork {
		if err := unix.Mount("sysfs", dst, "sysfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("the box's /sys: %w", err)
		}
		return nil
	}
	if err := unix.Mount("/sys", dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("the box's /sys: %w", err)
	}
	return nil
}

// bindOne mounts the source descriptor path at b.Target in top, or, with
// over, an overlay whose upper it is over over's lowers. A mount point is
// made only where it is the sandbox's to make: in top itself, or on the
// new /home; never in a directory bound from this machine, where it would
// be made on this machine.
func bindOne(top string, b Bind, source string, over *layer) error {
	target := top + path.Clean("/"+b.Target)
	if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
		if dir := path.Dir(path.Clean("/" + b.Target)); dir != "/" && dir != "/home" {
			return fmt.Errorf("bind %s: no mount point", b.Target)
		}
		st, serr := os.Stat(source)
		if serr != nil {
			return serr
		}
		if st.IsDir() {
			err = os.MkdirAll(target, 0o755)
		} else {
			err = os.WriteFile(target, nil, 0o644)
		}
		if err != nil {
			return fmt.Errorf("mount point %s: %w", b.Target, err)
		}
	}
	if over != nil {
		if err := over.mount(target, source); err != nil {
			return fmt.Errorf("the clone's %s: %w", b.Target, err)
		}
		return nil
	}
	if err := unix.Mount(source, target, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind %s: %w", b.Target, err)
	}
	if b.ReadOnly {
		return remountRO(target)
	}
	return nil
}

// setupDev replaces /dev with a small one: the harmless devices, a pty
// instance of the sandbox's own and a shared-memory directory.
func setupDev(dev string, devs map[string]int) error {
	if err := mountTmpfs(dev, "mode=755"); err != nil {
		return err
	}
	for name, fd := range devs {
		p := dev + "/" + name
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
		if err := os.Symlink(target, dev+"/"+link); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dev+"/pts", 0o755); err != nil {
		return err
	}
	// Without a pty instance of its own a sandbox just has no ptys.
	_ = unix.Mount("devpts", dev+"/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := os.Mkdir(dev+"/shm", 0o755); err != nil {
		return err
	}
	if err := mountTmpfs(dev+"/shm", "mode=1777"); err != nil {
		return err
	}
	return remountRO(dev)
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
