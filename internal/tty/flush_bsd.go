//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package tty

import "golang.org/x/sys/unix"

// fread is TIOCFLUSH's word for the input queue (FREAD of sys/fcntl.h).
const fread = 1

// discardInput drops what was typed on the terminal and not read
// (tcflush(TCIFLUSH)).
func discardInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }
