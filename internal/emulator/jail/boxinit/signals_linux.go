//go:build linux

package boxinit

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// runExec is the trampoline: it starts path with argv as a process starts
// under a real init, with every signal's default disposition and none
// blocked, whatever this process inherited (a shell's `trap "" INT`, a
// runner's blocked mask). Ignored signals stay ignored across exec, and
// the mask passes as it is, so both are reset here, on the thread that
// execs; a Go program cannot set them for a child it forks.
func runExec(path string, argv []string) int {
	runtime.LockOSThread()
	resetSignals()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, execEnv+"=") {
			env = append(env, kv)
		}
	}
	err := syscall.Exec(path, argv, env)
	fmt.Fprintf(os.Stderr, "%s: %v\n", argv[0], err)
	if os.IsNotExist(err) {
		return ExitNotFound
	}
	return ExitSetup
}

// resetSignals gives every ignored signal its default disposition back
// and unblocks every signal on this thread. (Handlers the runtime set go
// back to their default at exec.)
func resetSignals() {
	// The kernel's struct sigaction, zeroed: SIG_DFL, no flags, no mask.
	// Its handler is the first field on every architecture.
	var dfl, old [4]uint64
	for sig := 1; sig < 65; sig++ {
		if sig == int(syscall.SIGKILL) || sig == int(syscall.SIGSTOP) {
			continue
		}
		_, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), 0, uintptr(unsafe.Pointer(&old)), 8, 0, 0)
		if errno == 0 && old[0] == 1 { // SIG_IGN
			_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
		}
	}
	_ = unix.PthreadSigmask(unix.SIG_SETMASK, &unix.Sigset_t{}, nil)
}
