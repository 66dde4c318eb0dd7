//go:build linux

package envd

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// asUser runs fn with the file-system rights of the user the sandbox's
// processes run as, when that is not this process's: a root emulator's
// files API then reads and writes only what the sandbox itself could (not
// /etc/shadow, not another user's files), and what it makes belongs to
// the sandbox's user.
//
// Those rights are a thread's (fsuid, fsgid, groups), so fn runs on a
// goroutine that locks its thread and ends without unlocking it: the
// thread ends with it, and no other goroutine ever runs with its rights.
func (s *Server) asUser(fn func() error) error {
	uid, gid := jail.Owner()
	if !s.opts.Isolated || uid == os.Geteuid() {
		return fn()
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Raw calls: the Go wrappers would change every thread.
		if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
			done <- e
			return
		}
		if err := unix.Setfsgid(gid); err != nil {
			done <- err
			return
		}
		if err := unix.Setfsuid(uid); err != nil {
			done <- err
			return
		}
		done <- fn()
	}()
	return <-done
}
