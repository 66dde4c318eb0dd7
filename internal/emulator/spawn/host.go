//go:build unix

package spawn

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
)

// Host starts processes on this machine, as cmd says (its Path, Args,
// Dir, Env and SysProcAttr; its streams and extra files are the Cmd's):
// each run of the Starter starts a copy of cmd, with default signal
// dispositions and no signal blocked (InheritsSignals). The process must
// lead a process group of its own (SysProcAttr.Setsid or Setpgid):
// SignalGroup and EndGroup signal it.
func Host(cmd *exec.Cmd) Starter {
	return func(files []*os.File, endGroup bool) (Process, error) {
		c := *cmd
		if InheritsSignals() {
			env := c.Env
			if env == nil {
				env = c.Environ()
			}
			c.Path, c.Args, c.Env = boxinit.ExecArgs(c.Path, c.Args, env)
		}
		c.Stdin, c.Stdout, c.Stderr = files[0], files[1], files[2]
		c.ExtraFiles = files[3:]
		if err := c.Start(); err != nil {
			return nil, err
		}
		return &host{cmd: &c, endGroup: endGroup}, nil
	}
}

// host is a process of this machine.
type host struct {
	cmd      *exec.Cmd
	endGroup bool

	mu     sync.Mutex
	reaped bool // from here on its pid may be another process's
}

func (h *host) Pid() int { return h.cmd.Process.Pid }

// Signal goes through the process's handle (a pidfd where there is one),
// so that no process that took the pid since is reached.
func (h *host) Signal(sig syscall.Signal) error { return h.cmd.Process.Signal(sig) }

func (h *host) SignalGroup(sig syscall.Signal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.reaped {
		_ = syscall.Kill(-h.cmd.Process.Pid, sig)
	}
}

func (h *host) Wait() (syscall.WaitStatus, error) {
	// As a zombie the process keeps its pid, and so its group's: the
	// group is signalled before the reap, never after.
	exited := awaitExit(h.cmd.Process.Pid)
	h.mu.Lock()
	if h.endGroup && exited {
		_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	}
	h.reaped = true
	h.mu.Unlock()
	err := h.cmd.Wait()
	st := h.cmd.ProcessState
	if st == nil {
		return 0, err
	}
	if h.endGroup && !exited {
		_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return st.Sys().(syscall.WaitStatus), err
	}
	return st.Sys().(syscall.WaitStatus), nil
}
