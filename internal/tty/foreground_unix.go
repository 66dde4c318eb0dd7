//go:build unix

package tty

import (
	"os"

	"golang.org/x/sys/unix"
)

// Foreground tells whether abx's process group is the foreground group
// of its controlling terminal. A Ctrl-C typed there then reached every
// process of the group, the children abx started with it.
func Foreground() bool {
	f, err := os.Open("/dev/tty")
	if err != nil {
		return false // no controlling terminal
	}
	defer func() { _ = f.Close() }()
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}
