package tty

import "golang.org/x/sys/unix"

// discardInput drops what was typed on the terminal and not read
// (tcflush(TCIFLUSH)).
func discardInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
