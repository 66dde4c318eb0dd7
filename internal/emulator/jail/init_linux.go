//go:build linux

package jail

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The box's init is PID 1 of the box's PID namespace. It builds the view
// once, listens on its socket (opened before the view covers where it
// lies), and starts each command a relay hands it, as the sandbox user in
// a user namespace nested in its own (no power over the mounts). It reaps
// whatever ends in the box, as an init does. It ends when the emulator
// does (its lifeline closes) or is killed; the kernel then ends every
// process of the box.

// Descriptors StartBox gives the init.
const (
	fdLifeline = 3
	fdReady    = 4
)

// runBox is the init.
func runBox(spec BoxSpec) int {
	// Descriptors the emulator inherited from its own parent stay out.
	_ = unix.CloseRange(fdReady+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	os.Clearenv()
	ln, err := net.ListenUnix("unixpacket", &net.UnixAddr{Name: spec.Socket, Net: "unixpacket"})
	if err != nil && !spec.Probe {
		fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
		return exitSetup
	}
	if err := setup(spec); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
		return exitSetup
	}
	if spec.Probe {
		return 0
	}
	if os.Getuid() == 0 && spec.ParentID != 0 {
		// Real root's box: its commands must not keep root's groups.
		if err := syscall.Setgroups(nil); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
			return exitSetup
		}
	}
	b := &boxInit{spec: spec, running: map[int]chan syscall.WaitStatus{}, pids: map[int]int{}, waiting: map[int][]chan int{}}
	go b.reap()
	// The emulator's end (however it ends) closes the lifeline: the init
	// ends, and with it the box.
	go func() {
		var one [1]byte
		_, _ = os.NewFile(fdLifeline, "lifeline").Read(one[:])
		os.Exit(abxerr.ExitOK)
	}()
	ready := os.NewFile(fdReady, "ready")
	_, _ = ready.Write([]byte{1})
	_ = ready.Close()
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", InitName, err)
			return exitSetup
		}
		go b.serve(&conn{c: c})
	}
}

// boxInit is the init's state.
type boxInit struct {
	spec BoxSpec

	mu sync.Mutex
	// running are the commands started and not yet reaped, by pid, each
	// with where its end goes.
	running map[int]chan syscall.WaitStatus
	// pids are the running commands' pids by their relays' pids; waiting
	// are the emulator's questions for relays not yet heard from.
	pids    map[int]int
	waiting map[int][]chan int
}

// serve answers one connection: a relay with a command, or the emulator
// with a question. One from inside the box (whose pid this namespace
// knows) is refused: the socket is out of sandboxes' sight, and stays out
// of their reach.
func (b *boxInit) serve(c *conn) {
	defer c.close()
	if raw, err := c.c.SyscallConn(); err == nil {
		var cred *unix.Ucred
		_ = raw.Control(func(fd uintptr) { cred, _ = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
		if cred == nil || cred.Pid != 0 {
			return
		}
	}
	m, files, err := c.recv()
	if err != nil {
		return
	}
	switch m.Op {
	case opSpec:
		if m.Spec != nil {
			b.run(c, *m.Spec, files)
			return
		}
	case opPIDOf:
		_ = c.send(message{Op: opPID, PID: b.pidOf(m.PID)})
	case opStop, opCont:
		sig := syscall.SIGSTOP
		if m.Op == opCont {
			sig = syscall.SIGCONT
		}
		signalBox(sig)
		_ = c.send(message{Op: opDone})
	}
	closeAll(files)
}

// run starts a command with the descriptors its relay sent, tells the
// relay its pid, passes the relay's signals on, and tells it how the
// command ended. A relay that goes away (killed) takes the command's
// process group with it.
func (b *boxInit) run(c *conn, spec Spec, files []*os.File) {
	pid, end, err := b.start(spec, files)
	closeAll(files) // the command has them: the streams end with it
	if err != nil {
		code := exitSetup
		var nf *notFoundError
		if errors.As(err, &nf) {
			code = exitNotFound
		}
		b.resolve(spec.RelayPID, 0)
		_ = c.send(message{Op: opExit, Error: err.Error(), Code: code})
		return
	}
	b.resolve(spec.RelayPID, pid)
	_ = c.send(message{Op: opPID, PID: pid})
	go func() {
		for {
			m, fs, err := c.recv()
			closeAll(fs)
			if err != nil {
				b.signal(pid, true, syscall.SIGKILL)
				return
			}
			if m.Op == opSignal && m.Signal > 0 {
				b.signal(pid, false, syscall.Signal(m.Signal))
			}
		}
	}()
	ws := <-end
	status := int(ws)
	_ = c.send(message{Op: opExit, Status: &status})
	// The emulator asks for the pid once the relay has started, which on
	// a busy machine may be after a short command has ended: the answer
	// stays known a while.
	time.AfterFunc(pidWait, func() {
		b.mu.Lock()
		if b.pids[spec.RelayPID] == pid {
			delete(b.pids, spec.RelayPID)
		}
		b.mu.Unlock()
	})
}

// notFoundError is a command that is not on its PATH.
type notFoundError struct{ name string }

func (e *notFoundError) Error() string { return e.name + ": command not found" }

// start forks the command: in a session of its own (on its terminal, for
// a Tty spec), as the sandbox's user (uid 1000, or 0 for root) in a user
// namespace nested in the init's, with no power over the mounts. Its end
// comes on end, which the caller gets from start itself: once start
// returns, the reaper may have taken the command out of the table already.
func (b *boxInit) start(spec Spec, files []*os.File) (pid int, end <-chan syscall.WaitStatus, err error) {
	if len(spec.Args) == 0 || len(files) != 3+spec.ExtraFiles {
		return 0, nil, errors.New("bad command")
	}
	path, err := lookPath(spec.Args[0], spec.Env)
	if err != nil {
		return 0, nil, err
	}
	id := UserUID
	if spec.Root {
		id = 0
	}
	fds := make([]uintptr, len(files))
	for i, f := range files {
		fds[i] = f.Fd()
	}
	attr := &syscall.ProcAttr{Dir: spec.Dir, Env: spec.Env, Files: fds, Sys: &syscall.SysProcAttr{
		Setsid:                     true,
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: id, HostID: b.spec.ParentID, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: id, HostID: b.spec.ParentID, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Credential:                 &syscall.Credential{Uid: uint32(id), Gid: uint32(id), NoSetGroups: true},
	}}
	if spec.Tty {
		// Descriptor 0 of the child, the pty's slave end: the session the
		// command leads gets it as its controlling terminal.
		attr.Sys.Setctty, attr.Sys.Ctty = true, 0
	}
	// Held until the command is in the table: the reaper may not take its
	// end before.
	b.mu.Lock()
	defer b.mu.Unlock()
	pid, err = syscall.ForkExec(path, spec.Args, attr)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
			if _, serr := os.Stat(spec.Dir); serr != nil {
				return 0, nil, fmt.Errorf("working directory %s: %w", spec.Dir, serr)
			}
		}
		return 0, nil, fmt.Errorf("%s: %w", spec.Args[0], err)
	}
	ch := make(chan syscall.WaitStatus, 1)
	b.running[pid] = ch
	return pid, ch, nil
}

// lookPath finds name on the PATH of env, inside the view.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &notFoundError{name: name}
}

// signal sends sig to a running command, and with group to its whole
// process group too. A command reaped already is left alone: its pid may
// be another's.
func (b *boxInit) signal(pid int, group bool, sig syscall.Signal) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.running[pid]; !ok {
		return
	}
	if group {
		_ = syscall.Kill(-pid, sig)
	}
	_ = syscall.Kill(pid, sig)
}

// reap waits for whatever ends in the box, as an init must, and hands
// the commands' ends to their relays.
func (b *boxInit) reap() {
	children := make(chan os.Signal, 1)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			<-children // nothing to wait for until something starts and ends
			continue
		case err != nil:
			continue
		}
		b.mu.Lock()
		end := b.running[pid]
		delete(b.running, pid)
		b.mu.Unlock()
		if end != nil {
			end <- ws
		}
	}
}

// resolve records the pid of relay's command (0: it never started) and
// answers whoever asked for it already.
func (b *boxInit) resolve(relay, pid int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pid != 0 {
		b.pids[relay] = pid
	}
	for _, w := range b.waiting[relay] {
		w <- pid
	}
	delete(b.waiting, relay)
}

// pidOf is the pid of relay's command, once known (0: it never started,
// ended already, or its relay never came within pidWait).
func (b *boxInit) pidOf(relay int) int {
	b.mu.Lock()
	if pid, ok := b.pids[relay]; ok {
		b.mu.Unlock()
		return pid
	}
	w := make(chan int, 1)
	b.waiting[relay] = append(b.waiting[relay], w)
	b.mu.Unlock()
	select {
	case pid := <-w:
		return pid
	case <-time.After(pidWait):
		return 0
	}
}

// signalBox sends sig to every process of the box but the init, from its
// own /proc, pass after pass until a pass finds none it had not reached:
// a process may fork while the passes run.
func signalBox(sig syscall.Signal) {
	sent := map[int]bool{}
	for range 5 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		fresh := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == 1 || sent[pid] {
				continue
			}
			sent[pid], fresh = true, true
			_ = syscall.Kill(pid, sig)
		}
		if !fresh {
			return
		}
	}
}
