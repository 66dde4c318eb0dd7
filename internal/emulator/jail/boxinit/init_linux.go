//go:build linux

package boxinit

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The box's init is PID 1 of the box's PID namespace. It builds the view
// once, listens on its socket (opened before the view covers where it
// lies), and starts each command the emulator hands it, as the sandbox
// user in a user namespace nested in its own (no power over the mounts).
// It reaps whatever ends in the box, as an init does. It ends when the
// emulator does (its lifeline closes) or is killed; the kernel then ends
// every process of the box.

// leftovers are the init's socket and its directory, which the emulator
// removes when it kills the box; when the emulator ends without doing so
// (killed, or a test binary done with it), the init removes them itself
// as it ends. It reaches them through descriptors opened before its root
// moved: this machine's paths are out of its sight after.
type leftovers struct {
	dir, parent int // O_PATH descriptors; -1 where not opened
	name, base  string
}

func leftBehind(socket string) leftovers {
	dir, name := path.Split(socket)
	dir = path.Clean(dir)
	parent, base := path.Split(dir)
	l := leftovers{dir: -1, parent: -1, name: name, base: base}
	if name == "" || base == "" {
		return l
	}
	l.dir, _ = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	l.parent, _ = unix.Open(path.Clean(parent), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	return l
}

// remove removes the socket, then its directory if nothing else is in it
// (a box's scratch root and layers are the emulator's to remove).
func (l leftovers) remove() {
	if l.dir >= 0 {
		_ = unix.Unlinkat(l.dir, l.name, 0)
	}
	if l.parent >= 0 {
		_ = unix.Unlinkat(l.parent, l.base, unix.AT_REMOVEDIR)
	}
}

// runBox is the init.
func runBox(spec BoxSpec) int {
	// Descriptors the emulator inherited from its own parent stay out.
	_ = unix.CloseRange(FDReady+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	os.Clearenv()
	ln, err := listen(spec.Socket)
	if err != nil && !spec.Probe {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
		return ExitSetup
	}
	// Held from before the root moves away from this machine's: what the
	// init removes of its own when the emulator ends without killing it.
	left := leftBehind(spec.Socket)
	sudo, err := setup(spec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
		return ExitSetup
	}
	if spec.Probe {
		return 0
	}
	if os.Getuid() == 0 && spec.ParentID != 0 {
		// Real root's box: its commands must not keep root's groups.
		if err := syscall.Setgroups(nil); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
			return ExitSetup
		}
	}
	b := &boxInit{spec: spec, running: map[int]*command{}, started: make(chan struct{}, 1)}
	if spec.Carry {
		// Before any command starts: each inherits the trap.
		trap, err := trapConnect()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
			return ExitSetup
		}
		b.trap = append([]*os.File{trap}, relays(spec.Resolvers)...)
	}
	go b.reap()
	if sudo != nil {
		go b.serveSudo(sudo)
	}
	// The emulator's end (however it ends) closes the lifeline: the init
	// ends, and with it the box.
	go func() {
		var one [1]byte
		_, _ = os.NewFile(FDLifeline, "lifeline").Read(one[:])
		left.remove()
		os.Exit(0)
	}()
	ready := os.NewFile(FDReady, "ready")
	_, _ = ready.Write([]byte{1})
	_ = ready.Close()
	for {
		c, err := accept(ln)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
			return ExitSetup
		}
		go b.serve(c)
	}
}

// listen opens the init's socket at path, non-blocking: the runtime's
// poller serves it, as it serves the connections.
func listen(path string) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	if err := syscall.Listen(fd, syscall.SOMAXCONN); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// accept waits for the next connection to ln.
func accept(ln *os.File) (*Conn, error) {
	raw, err := ln.SyscallConn()
	if err != nil {
		return nil, err
	}
	var nfd int
	var aerr error
	err = raw.Read(func(fd uintptr) bool {
		nfd, _, aerr = syscall.Accept4(int(fd), syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
		return !errors.Is(aerr, syscall.EAGAIN)
	})
	if err == nil {
		err = aerr
	}
	if err != nil {
		return nil, err
	}
	return NewConn(os.NewFile(uintptr(nfd), "conn"))
}

// boxInit is the init's state.
type boxInit struct {
	spec BoxSpec

	mu sync.Mutex
	// running are the commands started and not yet reaped, by pid.
	running map[int]*command
	// started tells the reaper that a command started: with nothing
	// running it waits for one.
	started chan struct{}
	// trap is the connect trap's listener and the resolvers' sockets
	// (BoxSpec.Carry), until the emulator takes them.
	trap []*os.File
}

// command is a command started and not yet reaped: where its end goes,
// and whether its group goes with it.
type command struct {
	end      chan syscall.WaitStatus
	endGroup bool
}

// serve answers one connection: a command to run, or a question. One from
// inside the box (whose pid this namespace knows) is refused: the socket
// is out of sandboxes' sight, and stays out of their reach.
func (b *boxInit) serve(c *Conn) {
	defer c.Close()
	if pid, err := c.peerPID(); err != nil || pid != 0 {
		return
	}
	m, files, err := c.Recv()
	if err != nil {
		return
	}
	switch m.Op {
	case OpSpec:
		if m.Spec != nil {
			b.run(c, *m.Spec, files)
			return
		}
	case OpStop, OpCont:
		sig := syscall.SIGSTOP
		if m.Op == OpCont {
			sig = syscall.SIGCONT
		}
		signalBox(sig)
		_ = c.Send(Message{Op: OpDone})
	case OpTrap:
		b.mu.Lock()
		trap := b.trap
		b.trap = nil
		b.mu.Unlock()
		if len(trap) == 0 {
			_ = c.Send(Message{Op: OpTrap, Error: "no trap to hand over"})
			break
		}
		_ = c.Send(Message{Op: OpTrap}, trap...)
		CloseFiles(trap)
	case OpDial:
		if b.spec.OwnNetwork {
			dial(c, m.Port)
		} else {
			_ = c.Send(Message{Op: OpConn, Error: "the box shares this machine's network"})
		}
	}
	CloseFiles(files)
}

// run starts a command with the descriptors sent with it, answers with
// its pid, passes signals on, and tells how the command ended. A
// connection closed before the end takes the command's process group with
// it: the emulator let go of it.
func (b *boxInit) run(c *Conn, spec Spec, files []*os.File) {
	pid, cmd, err := b.start(spec, files)
	CloseFiles(files) // the command has them: the streams end with it
	if err != nil {
		_ = c.Send(Message{Op: OpExit, Error: err.Error()})
		return
	}
	_ = c.Send(Message{Op: OpPID, PID: pid})
	go func() {
		for {
			m, fs, err := c.Recv()
			CloseFiles(fs)
			if err != nil {
				b.signal(pid, cmd, true, syscall.SIGKILL)
				return
			}
			if m.Op == OpSignal && m.Signal > 0 {
				b.signal(pid, cmd, m.Group, syscall.Signal(m.Signal))
			}
		}
	}()
	ws := <-cmd.end
	status := int(ws)
	_ = c.Send(Message{Op: OpExit, Status: &status})
}

// start forks the command: in a session of its own (on its terminal, for
// a Tty spec), as the sandbox's user (uid 1000, or 0 for root) in a user
// namespace nested in the init's, with no power over the mounts, where
// the sandbox's root and user are mapped as the init can (BoxSpec.RootID).
// Its end comes on cmd.end, which the caller gets from start itself: once
// start returns, the reaper may have taken the command out of the table
// already.
func (b *boxInit) start(spec Spec, files []*os.File) (pid int, cmd *command, err error) {
	if len(spec.Args) == 0 || len(files) < 3 {
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
	ids := []syscall.SysProcIDMap{{ContainerID: id, HostID: b.spec.ParentID, Size: 1}}
	if r := b.spec.RootID; r != b.spec.ParentID {
		// Root and user are two users here: each command sees both,
		// what root made as root's, what user made as user's.
		ids = []syscall.SysProcIDMap{{ContainerID: 0, HostID: r, Size: 1}, {ContainerID: UserUID, HostID: b.spec.ParentID, Size: 1}}
	}
	attr := &syscall.ProcAttr{Dir: spec.Dir, Env: spec.Env, Files: fds, Sys: &syscall.SysProcAttr{
		Setsid:                     true,
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                ids,
		GidMappings:                ids,
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
	cmd = &command{end: make(chan syscall.WaitStatus, 1), endGroup: spec.EndGroup}
	b.running[pid] = cmd
	select {
	case b.started <- struct{}{}:
	default:
	}
	return pid, cmd, nil
}

// lookPath finds name on the PATH of env, inside the view.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	dirs := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			dirs = v
		}
	}
	for _, dir := range strings.Split(dirs, ":") {
		if dir == "" {
			dir = "."
		}
		p := path.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: command not found", name)
}

// signal sends sig to the command cmd started as pid, and with group to
// its whole process group too. A command reaped already is left alone: its
// pid may be another's, started since, which the table holds under it.
func (b *boxInit) signal(pid int, cmd *command, group bool, sig syscall.Signal) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running[pid] != cmd {
		return
	}
	if group {
		_ = syscall.Kill(-pid, sig)
	}
	_ = syscall.Kill(pid, sig)
}

// reap waits for whatever ends in the box, as an init must, and hands
// the commands' ends to their connections. A command whose group ends
// with it has its group killed before the reap, while its pid is still
// its own and no other process can have taken it.
func (b *boxInit) reap() {
	var info unix.Siginfo
	for {
		// Something has ended (it stays until reaped), or nothing runs.
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOWAIT, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			<-b.started // nothing to wait for until a command starts
			continue
		case err != nil:
			continue
		}
		b.mu.Lock()
		for pid, cmd := range b.running {
			if cmd.endGroup && exited(pid) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
			if cmd := b.running[pid]; cmd != nil {
				delete(b.running, pid)
				cmd.end <- ws
			}
		}
		b.mu.Unlock()
	}
}

// exited reports whether the child pid has ended and waits to be reaped.
func exited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo != 0
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
