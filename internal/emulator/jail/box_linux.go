//go:build linux

package jail

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Box is a sandbox's processes: an init that is PID 1 of a PID namespace
// of its own, in the sandbox's view, and starts every command of it. When
// the init ends, the kernel ends every process in the box, however it
// detached (a new session, a double fork, nohup); a cgroup, where this
// machine gives abx one, freezes and ends them all at once.
type Box struct {
	spec     BoxSpec
	dir      string // holds the init's socket
	init     *exec.Cmd
	lifeline *os.File // the init ends when it is closed: abx's end ends the box
	cg       *cgroup  // nil where no cgroup can be made
	stderr   *limitedBuffer
	done     chan struct{} // closed when the init has ended

	killOnce sync.Once
}

// startWait bounds the start of a box: its view is built by then on any
// machine, however loaded.
const startWait = 30 * time.Second

// StartBox starts a box's init, which builds the view spec describes and
// then serves until Kill, or until this process ends.
func StartBox(spec BoxSpec) (*Box, error) {
	// A short path (sockets take 107 bytes at most) that the box's view
	// covers: no sandbox process may reach the init of its own box or of
	// another.
	dir, err := os.MkdirTemp("", "abx-box-")
	if err != nil {
		return nil, err
	}
	spec.Socket = filepath.Join(dir, "init")
	spec.Hide = append(spec.Hide, dir)
	b := &Box{spec: spec, dir: dir, stderr: &limitedBuffer{max: 4 << 10}, done: make(chan struct{})}
	fail := func(err error) (*Box, error) {
		_ = os.RemoveAll(dir)
		if b.cg != nil {
			b.cg.remove()
		}
		return nil, err
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		_ = lifeR.Close()
		_ = lifeW.Close()
		return fail(err)
	}
	defer func() { _ = readyR.Close() }()
	cmd := &exec.Cmd{Path: selfExe, Args: []string{InitName}, ExtraFiles: []*os.File{lifeR, readyW}, Stderr: b.stderr}
	if spec.ParentID, err = isolate(cmd); err != nil {
		return fail(err)
	}
	if !spec.NoCgroup {
		if cg, err := newCgroup(); err == nil {
			b.cg = cg
			cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
		}
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return fail(err)
	}
	// In the environment, not argv: the spec names paths, which argv would
	// show every user of the machine.
	cmd.Env = []string{specEnv + "=" + string(js)}
	err = cmd.Start()
	_ = lifeR.Close()
	_ = readyW.Close()
	if err != nil {
		_ = lifeW.Close()
		return fail(err)
	}
	b.init, b.lifeline = cmd, lifeW
	go func() { _ = cmd.Wait(); close(b.done) }()
	if spec.Probe {
		<-b.done
		if !cmd.ProcessState.Success() {
			return fail(b.startError(cmd.ProcessState.String()))
		}
		_ = lifeW.Close()
		return b, nil
	}
	ready := make(chan bool, 1)
	go func() {
		var one [1]byte
		n, _ := readyR.Read(one[:])
		ready <- n == 1
	}()
	select {
	case ok := <-ready:
		if ok {
			return b, nil
		}
		<-b.done
		return fail(b.startError(cmd.ProcessState.String()))
	case <-time.After(startWait):
		b.Kill()
		return nil, fmt.Errorf("the sandbox's init did not start within %s", startWait)
	}
}

// startError is why the init ended before it served: what it said.
func (b *Box) startError(status string) error {
	msg := strings.TrimSpace(b.stderr.String())
	if msg == "" {
		msg = "its init ended: " + status
	}
	return errors.New(strings.TrimPrefix(msg, InitName+": "))
}

// Command makes (without starting it) the relay of a command to run in
// the box, with env, inheriting extra as descriptors 3, 4, .... The
// caller sets its standard streams and starts it, as any exec.Cmd; PID
// then says the command's pid in the box.
func (b *Box) Command(spec Spec, env []string, extra []*os.File) (*exec.Cmd, error) {
	if len(spec.Args) == 0 {
		return nil, errors.New("jail: no command")
	}
	spec.Socket, spec.Env, spec.ExtraFiles = b.spec.Socket, env, len(extra)
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := &exec.Cmd{Path: selfExe, Args: []string{RunName}, ExtraFiles: extra}
	cmd.Env = []string{specEnv + "=" + string(js)}
	// Its own session, as the command's in the box: a signal to the
	// relay's group reaches the relay, which passes it on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd, nil
}

// pidWait bounds the wait for a command's pid: the relay has connected
// and the init started the command, or the command never started.
const pidWait = 10 * time.Second

// PID is the pid in the box of the command whose relay has pid relay on
// this machine, once the init has started it.
func (b *Box) PID(relay int) (int, error) {
	m, err := b.ask(message{Op: opPIDOf, PID: relay}, pidWait)
	if err != nil {
		return 0, err
	}
	if m.Error != "" {
		return 0, errors.New(m.Error)
	}
	return m.PID, nil
}

// Freeze stops every process of the box at once, as pausing a real
// sandbox freezes it; Thaw lets them go on.
func (b *Box) Freeze() error {
	if b.cg != nil && b.cg.freeze(true) == nil {
		return nil
	}
	_, err := b.ask(message{Op: opStop}, pidWait)
	return err
}

// Thaw ends Freeze.
func (b *Box) Thaw() error {
	if b.cg != nil && b.cg.frozen() {
		return b.cg.freeze(false)
	}
	_, err := b.ask(message{Op: opCont}, pidWait)
	return err
}

// Processes lists the pids (on this machine) of the box's processes, the
// init's among them, while it runs.
func (b *Box) Processes() []int {
	if b.cg != nil {
		return b.cg.processes()
	}
	return nsMembers(b.init.Process.Pid)
}

// Done is closed when the box has ended.
func (b *Box) Done() <-chan struct{} { return b.done }

// killWait bounds the wait for a box's end after SIGKILL.
const killWait = 5 * time.Second

// Kill ends every process of the box, waits for them (a few seconds at
// most) and forgets the box.
func (b *Box) Kill() {
	b.killOnce.Do(func() {
		if b.cg != nil {
			b.cg.kill()
		}
		_ = b.init.Process.Kill() // the init's end ends the rest
		_ = b.lifeline.Close()
		select {
		case <-b.done:
		case <-time.After(killWait):
		}
		if b.cg != nil {
			b.cg.remove()
		}
		_ = os.RemoveAll(b.dir)
	})
}

// ask sends the init one control message and reads its answer.
func (b *Box) ask(m message, limit time.Duration) (message, error) {
	nc, err := net.DialTimeout("unixpacket", b.spec.Socket, limit)
	if err != nil {
		return message{}, fmt.Errorf("the sandbox's init: %w", err)
	}
	_ = nc.SetDeadline(time.Now().Add(limit))
	c := &conn{c: nc.(*net.UnixConn)}
	defer c.close()
	if err := c.send(m); err != nil {
		return message{}, err
	}
	answer, files, err := c.recv()
	closeAll(files)
	return answer, err
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}

var _ io.Writer = (*limitedBuffer)(nil)
