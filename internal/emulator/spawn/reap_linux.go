package spawn

import (
	"errors"

	"golang.org/x/sys/unix"
)

// awaitExit returns when the process has exited, leaving it unreaped, and
// reports that it could: as a zombie it keeps its pid, so a signal to its
// group cannot reach a process that would otherwise have taken that pid
// since.
func awaitExit(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return err == nil
		}
	}
}
