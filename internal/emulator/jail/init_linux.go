//go:build linux

package jail

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

// run is the init: it sets the view up, then runs the command in it.
func run(spec Spec) int {
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
	return runCommand(path, spec)
}

// runCommand runs the command in a user namespace nested in the init's,
// as uid 1000 (or 0 for root) there and ParentID in the init's, so that
// it has no power over the mounts; and stays as its parent: signals sent
// to the init go on to it, and its end is the init's end.
func runCommand(path string, spec Spec) int {
	id := UserUID
	if spec.Root {
		id = 0
	}
	cmd := exec.Command(path)
	cmd.Args = spec.Args
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
		// The command dies with the init, even by SIGKILL; the signal is
		// tied to the thread that started it, so that thread stays put.
		Pdeathsig: syscall.SIGKILL,
	}
	if os.Getuid() == 0 && spec.ParentID != 0 {
		// Real root's init: the command must not keep root's groups.
		if err := syscall.Setgroups(nil); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
			return exitSetup
		}
	}
	runtime.LockOSThread()
	signals := make(chan os.Signal, 16)
	signal.Notify(signals)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
		return exitSetup
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	go func() {
		for sig := range signals {
			if sig == syscall.SIGCHLD || sig == syscall.SIGURG {
				continue // the init's own business: a child ended, the runtime preempts
			}
			_ = cmd.Process.Signal(sig)
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
			return exitSetup
		}
		return 0
	}
	ws, _ := exit.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		// End as the command did, so the emulator sees the same signal.
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
