//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package profiles

import "golang.org/x/sys/unix"

const ioctlGet, ioctlSet = unix.TIOCGETA, unix.TIOCSETA
