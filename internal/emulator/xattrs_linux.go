package emulator

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// copyXattrs gives dst (not followed) src's extended attributes: an
// overlay's marks among them (trusted.overlay.opaque, user.overlay.*).
func copyXattrs(src, dst string) error {
	size, err := unix.Llistxattr(src, nil)
	if err != nil || size == 0 {
		if errors.Is(err, unix.ENOTSUP) {
			return nil
		}
		return err
	}
	names := make([]byte, size)
	if size, err = unix.Llistxattr(src, names); err != nil {
		return err
	}
	for _, name := range strings.Split(strings.TrimRight(string(names[:size]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		n, err := unix.Lgetxattr(src, name, nil)
		if err != nil {
			continue // gone, or not ours to read
		}
		val := make([]byte, n)
		if n, err = unix.Lgetxattr(src, name, val); err != nil {
			continue
		}
		if err := unix.Lsetxattr(dst, name, val[:n], 0); err != nil && !errors.Is(err, unix.EPERM) && !errors.Is(err, unix.ENOTSUP) {
			return err
		}
	}
	return nil
}
