//go:build linux

package jail

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The init stays as the command's parent: signals sent to it go on to
// the command, and the command's end is its end, by the same exit status
// or the same signal. Sandbox processes share this machine's process
// table, as the processes of one sandbox share theirs, so that ps and kill
// inside a sandbox see its other commands (docs/emulator.md says what
// that leaves out).

// run is the init.
func run(spec Spec) int {
	// Signals that come while the view is built wait for the command.
	signals := make(chan os.Signal, 16)
	signal.Notify(signals)
	// Descriptors the emulator inherited from its own parent stay out.
	_ = unix.CloseRange(uint(3+spec.ExtraFiles), ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	os.Clearenv()
	for _, kv := range spec.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			_ = os.Setenv(k, v)
		}
	}
	if err := setup(spec); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
		return exitSetup
	}
	if spec.Probe {
		return 0
	}
	path, err := exec.LookPath(spec.Args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: command not found\n", InitName, spec.Args[0])
		return exitNotFound
	}
	// The command runs in a user namespace nested in the init's, as uid
	// 1000 (or 0 for root) there and ParentID in the init's: it has no
	// power over the mounts.
	id := UserUID
	if spec.Root {
		id = 0
	}
	if os.Getuid() == 0 && spec.ParentID != 0 {
		// Real root's jail: the command must not keep root's groups.
		if err := syscall.Setgroups(nil); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
			return exitSetup
		}
	}
	cmd := exec.Command(path)
	cmd.Args, cmd.Env = spec.Args, spec.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for i := range spec.ExtraFiles {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(3+i), ""))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: id, HostID: spec.ParentID, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: id, HostID: spec.ParentID, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Credential:                 &syscall.Credential{Uid: uint32(id), Gid: uint32(id), NoSetGroups: true},
		// The command dies with the init, even by SIGKILL.
		Pdeathsig: syscall.SIGKILL,
	}
	ws, err := supervise(cmd, signals)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
		return exitSetup
	}
	if ws.Signaled() && diesBy[ws.Signal()] {
		// End as the command did, so that whoever started the init sees
		// the same signal.
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
	}
	if ws.Signaled() {
		// Signals Go's runtime handles itself (SIGSEGV, SIGQUIT, ...)
		// would not end the init the same way: their shell status.
		return abxerr.SignalStatus(int(ws.Signal()))
	}
	return ws.ExitStatus()
}

// diesBy are the signals the init can end by itself, re-raised: those
// Go's runtime leaves to their default action once reset.
var diesBy = map[syscall.Signal]bool{syscall.SIGHUP: true, syscall.SIGINT: true, syscall.SIGTERM: true,
	syscall.SIGUSR1: true, syscall.SIGUSR2: true, syscall.SIGALRM: true, syscall.SIGKILL: true}

// supervise starts cmd, passes the signals this process gets on to it,
// and reaps children until cmd has ended: the init is a subreaper, so
// what cmd leaves behind and ends while cmd runs does not stay a zombie.
func supervise(cmd *exec.Cmd, signals chan os.Signal) (syscall.WaitStatus, error) {
	// A child's parent-death signal is tied to the thread that started it.
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	pid := cmd.Process.Pid
	defer signal.Stop(signals)
	go func() {
		for sig := range signals {
			if sig == syscall.SIGCHLD || sig == syscall.SIGURG {
				continue // the init's own business: a child ended, the runtime preempts
			}
			// Through the process handle (a pidfd where the kernel has
			// them): a signal taken just before the reap below does not
			// go on to whoever has the pid after it.
			_ = cmd.Process.Signal(sig)
		}
	}()
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case got == pid && (ws.Exited() || ws.Signaled()):
			return ws, nil
		}
	}
}
