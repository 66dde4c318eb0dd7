//go:build linux

package envd

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

var errNoOpenat2 = errors.New("openat2 is not available")

// openBeneath opens rel inside dir, refusing any link on the way.
func openBeneath(dir, rel string, flag int, perm os.FileMode) (*os.File, error) {
	dirfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = unix.Close(dirfd) }()
	fd, err := unix.Openat2(dirfd, rel, &unix.OpenHow{
		Flags:   uint64(flag) | unix.O_CLOEXEC,
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) {
		return nil, errNoOpenat2
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, rel)), nil
}
