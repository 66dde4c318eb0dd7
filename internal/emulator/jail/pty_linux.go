//go:build linux

package jail

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// OpenPTY opens a terminal of the box's own pty instance (the devpts its
// /dev/pts holds): master is the emulator's end, slave the end a command
// started with Spec.Tty gets as its standard streams. Inside, the slave is
// /dev/pts/N of the box's /dev, so tty(1) names it; a terminal of this
// machine's would work as a terminal too, but would have no name there.
// The caller closes slave once the command has started. master is
// non-blocking, so that reads and writes on it take deadlines and end when
// it is closed.
func (b *Box) OpenPTY() (master, slave *os.File, err error) {
	if b.ended() {
		return nil, nil, errors.New("the sandbox's init has ended")
	}
	dir := fmt.Sprintf("/proc/%d/root/dev/pts", b.init.Process.Pid)
	fd, err := unix.Open(dir+"/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("the sandbox's ptys: %w", err)
	}
	// The init was there when the pty was opened, so the pid was its own
	// and not another's that took it after its end.
	if b.ended() {
		_ = unix.Close(fd)
		return nil, nil, errors.New("the sandbox's init has ended")
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(fd, &fs); err != nil || fs.Type != unix.DEVPTS_SUPER_MAGIC {
		_ = unix.Close(fd)
		return nil, nil, errors.New("the sandbox's /dev/pts is not a pty instance")
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		_ = unix.Close(fd)
		return nil, nil, fmt.Errorf("unlock pty: %w", err)
	}
	sfd, err := peer(fd, dir)
	if err != nil {
		_ = unix.Close(fd)
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), os.NewFile(uintptr(sfd), "/dev/pts"), nil
}

// peer opens the slave end of the master fd: by the master itself where
// the kernel can (4.13 on), else by its number under dir.
func peer(fd int, dir string) (int, error) {
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
	if errno == 0 {
		return int(r), nil
	}
	if errno != unix.EINVAL && errno != unix.ENOTTY {
		return -1, fmt.Errorf("open pty slave: %w", errno)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		return -1, fmt.Errorf("pty number: %w", err)
	}
	sfd, err := unix.Open(fmt.Sprintf("%s/%d", dir, n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open pty slave: %w", err)
	}
	return sfd, nil
}

// ended reports whether the init has ended (and its pid may be another's).
func (b *Box) ended() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}
