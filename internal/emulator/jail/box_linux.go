//go:build linux

package jail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
	"github.com/abx-dev/abx/internal/emulator/spawn"
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
	// carrier answers the box's connects and relays its names
	// (BoxSpec.Carry), as out decides.
	out     Egress
	carrier *carrier
	relays  []net.PacketConn

	killOnce sync.Once
}

// startWait bounds the start of a box: its view is built by then on any
// machine, however loaded.
const startWait = 30 * time.Second

// StartBox starts a box's init, which builds the view spec describes and
// then serves until Kill, or until this process ends. A carried box's
// connections out go where out lets them (nil: everywhere).
func StartBox(spec BoxSpec, out Egress) (*Box, error) {
	// A short path (sockets take 107 bytes at most) that the box's view
	// covers: no sandbox process may reach the init of its own box or of
	// another.
	dir, err := os.MkdirTemp("", "abx-box-")
	if err != nil {
		return nil, err
	}
	spec.Socket = filepath.Join(dir, "init")
	spec.Hide = append(spec.Hide, dir)
	if spec.Carry {
		spec.OwnNetwork = true
		if spec.Resolvers == nil {
			spec.Resolvers = machineResolvers()
		}
		if out == nil {
			out = func(netip.AddrPort) error { return nil }
		}
	}
	if spec.Top == "" {
		// A root of its own for as long as the box lives.
		spec.Top = filepath.Join(dir, "top")
		if err := Prepare(spec.Top, 0o755); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	if spec.Layers == "" {
		spec.Layers = filepath.Join(dir, "layers")
	}
	kind := initKind{ownNetwork: spec.OwnNetwork, cgroup: !spec.NoCgroup}
	var p *initProc
	if spec.Probe {
		p, err = launch(kind)
	} else {
		p, err = takeInit(kind)
	}
	if err == nil {
		spec, err = p.hand(spec)
		if err != nil && !spec.Probe {
			// A spare that ended while it waited (its pipe is closed):
			// one started now instead.
			p.discard()
			if p, err = launch(kind); err == nil {
				spec, err = p.hand(spec)
			}
		}
	}
	if err != nil {
		if p != nil {
			p.discard()
		}
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("the sandbox's init: %w", err)
	}
	b := &Box{spec: spec, out: out, dir: dir, init: p.cmd, lifeline: p.life, cg: p.cg, stderr: p.stderr, done: p.done}
	readyR := p.ready
	defer func() { _ = readyR.Close() }()
	fail := func(err error) (*Box, error) {
		b.Kill()
		return nil, err
	}
	if spec.Probe {
		<-b.done
		if !p.cmd.ProcessState.Success() {
			return fail(b.startError(p.cmd.ProcessState.String()))
		}
		_ = b.lifeline.Close()
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
		if !ok {
			break
		}
		if spec.Carry {
			if err := b.takeTrap(); err != nil {
				b.Kill()
				return nil, fmt.Errorf("the sandbox's network: %w", err)
			}
		}
		return b, nil
	case <-time.After(startWait):
		b.Kill()
		return nil, fmt.Errorf("the sandbox's init did not start within %s", startWait)
	}
	<-b.done
	return fail(b.startError(p.cmd.ProcessState.String()))
}

// takeTrap takes the box's connect trap and its resolvers' sockets from
// the init, and serves them.
func (b *Box) takeTrap() error {
	_, c, err := b.dial(askWait)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Send(boxinit.Message{Op: boxinit.OpTrap}); err != nil {
		return err
	}
	m, files, err := c.Recv()
	switch {
	case err != nil:
		return err
	case m.Error != "":
		boxinit.CloseFiles(files)
		return errors.New(m.Error)
	case m.Op != boxinit.OpTrap || len(files) == 0:
		boxinit.CloseFiles(files)
		return errors.New("the sandbox's init sent no trap")
	}
	for _, f := range files[1:] {
		if pc := startRelay(f); pc != nil {
			b.relays = append(b.relays, pc)
		}
	}
	b.carrier, err = newCarrier(files[0], b.out, b.spec.Resolvers, b.done)
	if err != nil {
		return err
	}
	go b.carrier.serve()
	return nil
}

// startError is why the init ended before it served: what it said.
func (b *Box) startError(status string) error {
	msg := strings.TrimSpace(b.stderr.String())
	if msg == "" {
		msg = "its init ended: " + status
	}
	return errors.New(strings.TrimPrefix(msg, InitName+": "))
}

// Command makes (without starting it) a command to run in the box, as
// spec says; Start of the Cmd returned starts it with the Cmd's streams.
func (b *Box) Command(spec Spec) *spawn.Cmd {
	return spawn.New(func(files []*os.File, endGroup bool) (spawn.Process, error) {
		spec.EndGroup = endGroup
		p, err := b.Start(spec, files)
		if err != nil {
			return nil, err
		}
		return p, nil
	})
}

// Start starts a command in the box with files as its descriptors (0, 1
// and 2, then 3, 4, ...), of which the command gets copies: the caller
// closes its own after. The command runs until it ends, or until the
// Process is dropped by Kill, which ends its group.
func (b *Box) Start(spec Spec, files []*os.File) (*Process, error) {
	if len(spec.Args) == 0 || len(files) < 3 {
		return nil, errors.New("jail: no command")
	}
	nc, c, err := b.dial(startWait)
	if err != nil {
		return nil, err
	}
	if err := c.Send(boxinit.Message{Op: boxinit.OpSpec, Spec: &spec}, files...); err != nil {
		c.Close()
		return nil, fmt.Errorf("the sandbox's init: %w", err)
	}
	m, fs, err := c.Recv()
	boxinit.CloseFiles(fs)
	switch {
	case err != nil:
		c.Close()
		return nil, errors.New("the sandbox's init has ended")
	case m.Op == boxinit.OpExit && m.Error != "":
		c.Close()
		return nil, errors.New(m.Error)
	case m.Op != boxinit.OpPID:
		c.Close()
		return nil, fmt.Errorf("the sandbox's init answered %q", m.Op)
	}
	_ = nc.SetDeadline(time.Time{}) // the command runs as long as it runs
	p := &Process{pid: m.PID, c: c, done: make(chan struct{})}
	go p.await()
	return p, nil
}

// Process is a command the box's init runs, held by its connection.
type Process struct {
	pid  int
	c    *boxinit.Conn
	done chan struct{} // closed when its end is known
	ws   syscall.WaitStatus
}

// Pid is the command's pid in the box.
func (p *Process) Pid() int { return p.pid }

// Signal sends sig to the command; os.ErrProcessDone once it has ended.
// The init signals only a command it has not reaped: no other process
// that took its pid is reached.
func (p *Process) Signal(sig syscall.Signal) error { return p.signal(sig, false) }

// SignalGroup sends sig to the command's process group, and to the
// command, until it is reaped.
func (p *Process) SignalGroup(sig syscall.Signal) { _ = p.signal(sig, true) }

func (p *Process) signal(sig syscall.Signal, group bool) error {
	select {
	case <-p.done:
		return os.ErrProcessDone
	default:
	}
	err := p.c.Send(boxinit.Message{Op: boxinit.OpSignal, Signal: int(sig), Group: group})
	if err != nil {
		select {
		case <-p.done:
			return os.ErrProcessDone
		default:
		}
	}
	return err
}

// Wait waits for the command's end. A box that ends first ends it as
// killed, as it was.
func (p *Process) Wait() (syscall.WaitStatus, error) {
	<-p.done
	return p.ws, nil
}

// await reads the init's word on the command's end, then lets the
// connection go.
func (p *Process) await() {
	p.ws = syscall.WaitStatus(syscall.SIGKILL)
	for {
		m, fs, err := p.c.Recv()
		boxinit.CloseFiles(fs)
		if err != nil {
			break
		}
		if m.Op == boxinit.OpExit && m.Status != nil {
			p.ws = syscall.WaitStatus(*m.Status)
			break
		}
	}
	p.c.Close()
	close(p.done)
}

// askWait bounds a control message's answer.
const askWait = 10 * time.Second

// Freeze stops every process of the box at once, as pausing a real
// sandbox freezes it; Thaw lets them go on.
func (b *Box) Freeze() error {
	if b.cg != nil && b.cg.freeze(true) == nil {
		return nil
	}
	_, err := b.ask(boxinit.Message{Op: boxinit.OpStop}, askWait)
	return err
}

// Thaw ends Freeze.
func (b *Box) Thaw() error {
	if b.cg != nil && b.cg.frozen() {
		return b.cg.freeze(false)
	}
	_, err := b.ask(boxinit.Message{Op: boxinit.OpCont}, askWait)
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

// Dial connects to port of the box's own loopback (BoxSpec.OwnNetwork),
// within ctx's deadline (10 s at most): the init, which is in the box's
// network, makes the connection and hands it over.
func (b *Box) Dial(ctx context.Context, port int) (net.Conn, error) {
	limit := askWait
	if d, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(d))
	}
	nc, c, err := b.dial(limit)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) })
	defer stop()
	if err := c.Send(boxinit.Message{Op: boxinit.OpDial, Port: port}); err != nil {
		return nil, fmt.Errorf("the sandbox's init: %w", err)
	}
	m, files, err := c.Recv()
	defer boxinit.CloseFiles(files)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the sandbox's init: %w", err)
	case m.Op != boxinit.OpConn:
		return nil, fmt.Errorf("the sandbox's init answered %q", m.Op)
	case m.Error != "":
		return nil, fmt.Errorf("port %d of the sandbox: %s", port, m.Error)
	case len(files) != 1:
		return nil, errors.New("the sandbox's init sent no connection")
	}
	return net.FileConn(files[0])
}

// Layered tells whether the box lays layers of its own over this
// machine's top-level directories (BoxSpec.IDMap).
func (b *Box) Layered() bool { return b.spec.IDMap }

// Root opens the box's root as its processes have it, and names the path
// it was opened by (/proc/PID/root of the init): this machine's
// directories are there with the box's layers over them.
func (b *Box) Root() (*os.Root, string, error) {
	p := fmt.Sprintf("/proc/%d/root", b.init.Process.Pid)
	r, err := os.OpenRoot(p)
	return r, p, err
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
		if b.carrier != nil {
			_ = b.carrier.trap.Close()
		}
		for _, pc := range b.relays {
			_ = pc.Close()
		}
		if b.cg != nil {
			b.cg.remove()
		}
		_ = os.RemoveAll(b.dir)
	})
}

// ask sends the init one control message and reads its answer.
func (b *Box) ask(m boxinit.Message, limit time.Duration) (boxinit.Message, error) {
	_, c, err := b.dial(limit)
	if err != nil {
		return boxinit.Message{}, err
	}
	defer c.Close()
	if err := c.Send(m); err != nil {
		return boxinit.Message{}, err
	}
	answer, files, err := c.Recv()
	boxinit.CloseFiles(files)
	return answer, err
}

// dial connects to the init's socket, within limit; the connection's
// reads and writes are bounded by limit too, until the caller lifts it
// (net.Conn.SetDeadline).
func (b *Box) dial(limit time.Duration) (net.Conn, *boxinit.Conn, error) {
	nc, err := net.DialTimeout("unixpacket", b.spec.Socket, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("the sandbox's init: %w", err)
	}
	_ = nc.SetDeadline(time.Now().Add(limit))
	c, err := boxinit.NewConn(nc.(*net.UnixConn))
	if err != nil {
		_ = nc.Close()
		return nil, nil, err
	}
	return nc, c, nil
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
