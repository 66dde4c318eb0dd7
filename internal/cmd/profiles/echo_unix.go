//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package profiles

import (
	"os"

	"golang.org/x/sys/unix"
)

// echoOff turns the terminal's echo off (a line break still shows, so
// Enter moves on) and returns what restores its mode.
func echoOff(f *os.File) (restore func(), err error) {
	fd := int(f.Fd())
	before, err := unix.IoctlGetTermios(fd, ioctlGet)
	if err != nil {
		return nil, err
	}
	quiet := *before
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, ioctlSet, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSet, before) }, nil
}
