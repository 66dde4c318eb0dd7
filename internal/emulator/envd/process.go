//go:build unix

package envd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/emulator/spawn"
	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

const (
	sigStop = syscall.SIGSTOP
	sigCont = syscall.SIGCONT
)

// stdChunk is the most one stdout or stderr DataEvent carries: envd reads
// each pipe 32 KiB at a time.
const stdChunk = 32 << 10

// proc is one process and the streams attached to it. Output read while
// nobody is attached is dropped, as envd does.
type proc struct {
	pid   uint32
	tag   string
	cfg   *pb.ProcessConfig
	cmd   *spawn.Cmd
	stdin io.WriteCloser

	stdout, stderr io.Reader

	// tty is the master end of the terminal of a process started on one
	// (pty.go), nil for a plain process, which has stdin, stdout and
	// stderr instead; writers hold ttyTurn in turn.
	tty     *os.File
	ttyTurn chan struct{}

	mu   sync.Mutex
	subs map[chan *pb.ProcessEvent]chan struct{} // event channel -> detached
	end  *pb.ProcessEvent
	done chan struct{}
}

type processes struct {
	s    *Server
	mu   sync.Mutex
	byID map[uint32]*proc // running: not yet reaped
	live map[*proc]bool   // not yet done: reaped, perhaps, but the end not yet published
}

func newProcesses(s *Server) *processes {
	return &processes{s: s, byID: map[uint32]*proc{}, live: map[*proc]bool{}}
}

// subscribe attaches a stream; the returned func detaches it.
func (p *proc) subscribe() (chan *pb.ProcessEvent, func()) {
	ch, gone := make(chan *pb.ProcessEvent, 16), make(chan struct{})
	p.mu.Lock()
	p.subs[ch] = gone
	p.mu.Unlock()
	return ch, func() {
		p.mu.Lock()
		if g, ok := p.subs[ch]; ok {
			close(g)
			delete(p.subs, ch)
		}
		p.mu.Unlock()
	}
}

// subscriber is an attached stream: its event channel, and whether it
// detached.
type subscriber struct {
	ch   chan *pb.ProcessEvent
	gone chan struct{}
}

// publish hands an event to every attached stream, waiting for each (so
// a slow reader slows the process, as a pipe does) unless it detaches.
func (p *proc) publish(ev *pb.ProcessEvent) {
	p.mu.Lock()
	// On the stack for the usual one or two streams: publish runs for
	// every chunk of output.
	targets := make([]subscriber, 0, 4)
	for ch, gone := range p.subs {
		targets = append(targets, subscriber{ch, gone})
	}
	p.mu.Unlock()
	for _, t := range targets {
		select {
		case t.ch <- ev:
		case <-t.gone:
		}
	}
}

func (ps *processes) start(req *pb.StartRequest, user string) (*proc, error) {
	s := ps.s
	cfg := req.GetProcess()
	name, args := cfg.GetCmd(), cfg.GetArgs()
	tty := req.GetPty()
	if s.version.AtLeast(envd.Version{Major: 0, Minor: 6}) {
		// Newer envd wraps every command in /bin/sh: a missing one exits 127.
		name, args = "/bin/sh", append([]string{"-c", `exec "$0" "$@"`, name}, args...)
	} else if _, err := s.lookPath(name, s.processEnv(user, cfg.GetEnvs())); err != nil {
		notFound := fmt.Errorf("exec: %q: executable file not found in $PATH", name)
		if tty != nil {
			return nil, ptyStartError(user, cfg, tty, notFound)
		}
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("error starting process: %w", notFound))
	}
	cmd, err := s.command(user, cfg.GetCwd(), append([]string{name}, args...), cfg.GetEnvs(), tty != nil)
	if err != nil {
		return nil, err
	}
	p := &proc{cfg: cfg, cmd: cmd, tag: req.GetTag(), subs: map[chan *pb.ProcessEvent]chan struct{}{}, done: make(chan struct{})}
	if tty != nil {
		// On a terminal, as envd starts it: no stdin, stdout or stderr of
		// its own, all three are the terminal.
		master, slave, err := s.openPTY()
		if err != nil {
			return nil, ptyStartError(user, cfg, tty, err)
		}
		if err := setSize(master, tty.GetSize()); err != nil {
			_, _ = master.Close(), slave.Close()
			return nil, ptyStartError(user, cfg, tty, err)
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
		err = cmd.Start()
		_ = slave.Close() // the process holds it: the master reads until it lets go
		if err != nil {
			_ = master.Close()
			return nil, ptyStartError(user, cfg, tty, err)
		}
		p.tty, p.ttyTurn = master, make(chan struct{}, 1)
		ps.add(p)
		return p, nil
	}
	// Before 0.3.0 every process gets a stdin pipe that never closes; later
	// versions open one only when asked.
	if req.Stdin == nil || req.GetStdin() || !s.version.AtLeast(envd.StdinFlag) {
		w, err := cmd.StdinPipe()
		if err != nil {
			return nil, connect.NewError(connect.CodeInternal, err)
		}
		p.stdin = w
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	p.stdout, p.stderr = stdout, stderr
	ps.add(p)
	return p, nil
}

// add puts a started process in the table, by its pid in the sandbox.
func (ps *processes) add(p *proc) {
	p.pid = uint32(p.cmd.Process.Pid())
	ps.mu.Lock()
	ps.byID[p.pid] = p
	ps.live[p] = true
	ps.mu.Unlock()
}

// ptyStartError is envd's answer for a process it could not start on a
// terminal.
func ptyStartError(user string, cfg *pb.ProcessConfig, tty *pb.PTY, err error) error {
	dir := cfg.GetCwd()
	if dir == "" {
		dir = homeOf(user)
	}
	line := strings.Join(append([]string{cfg.GetCmd()}, cfg.GetArgs()...), " ")
	return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("error starting pty with command '%s' in dir '%s' with '%d' cols and '%d' rows: %w",
		line, dir, tty.GetSize().GetCols(), tty.GetSize().GetRows(), err))
}

// run copies output to the attached streams, then publishes the end. The
// starting stream subscribes before run, so it misses nothing.
func (p *proc) run(ps *processes) {
	var wg sync.WaitGroup
	pump := func(r io.Reader, size int, wrap func([]byte) *pb.ProcessEvent_DataEvent) {
		defer wg.Done()
		buf := make([]byte, size)
		rest := readyReader(r)
		for {
			n, err := r.Read(buf)
			if n > 0 && err == nil && rest != nil {
				// What came while the first read woke joins it: a
				// terminal's master gives 4 KiB a read.
				n += rest(buf[n:])
			}
			if n > 0 {
				chunk := append([]byte(nil), buf[:n]...)
				p.publish(&pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: wrap(chunk)}})
			}
			if err != nil {
				return
			}
		}
	}
	var err error
	if p.tty != nil {
		// The master reads until no process holds the slave (EIO): the
		// process's end, unless it left a job behind on its terminal,
		// which loses its terminal ptyDrain later.
		wg.Add(1)
		drained := make(chan struct{})
		go func() {
			pump(p.tty, ptyChunk, func(b []byte) *pb.ProcessEvent_DataEvent {
				return &pb.ProcessEvent_DataEvent{Output: &pb.ProcessEvent_DataEvent_Pty{Pty: b}}
			})
			close(drained)
		}()
		err = p.cmd.Wait()
		select {
		case <-drained:
		case <-time.After(ptyDrain):
		}
		_ = p.tty.Close()
		wg.Wait()
	} else {
		wg.Add(2)
		go pump(p.stdout, stdChunk, func(b []byte) *pb.ProcessEvent_DataEvent {
			return &pb.ProcessEvent_DataEvent{Output: &pb.ProcessEvent_DataEvent_Stdout{Stdout: b}}
		})
		go pump(p.stderr, stdChunk, func(b []byte) *pb.ProcessEvent_DataEvent {
			return &pb.ProcessEvent_DataEvent{Output: &pb.ProcessEvent_DataEvent_Stderr{Stderr: b}}
		})
		wg.Wait()
		err = p.cmd.Wait()
	}
	// Gone from the table at once: from the reap on its pid may be another
	// process's, which no signal meant for this one must reach. (0.2.10
	// keeps no end event after exit either.)
	ps.forget(p)
	ws := p.cmd.Status
	end := &pb.ProcessEvent_EndEvent{ExitCode: int32(ws.ExitStatus()), Exited: !ws.Signaled(), Status: spawn.StatusString(ws)}
	var exit *spawn.ExitError
	if err != nil && !errors.As(err, &exit) {
		msg := err.Error()
		end.Error = &msg
	}
	ev := &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: end}}
	p.mu.Lock()
	p.end = ev
	p.mu.Unlock()
	p.publish(ev)
	ps.mu.Lock()
	delete(ps.live, p)
	ps.mu.Unlock()
	close(p.done)
}

// forget drops a reaped process from the table. A process started since
// the reap may have its pid and hold the entry already: that one stays.
func (ps *processes) forget(p *proc) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.byID[p.pid] == p {
		delete(ps.byID, p.pid)
	}
}

// killGroup kills p's process group while p is in the table, which it
// leaves right after the reap: from then on its pid may name another
// process's group.
func (ps *processes) killGroup(p *proc) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.byID[p.pid] == p {
		p.cmd.Process.SignalGroup(syscall.SIGKILL)
	}
}

func (ps *processes) get(sel *pb.ProcessSelector) (*proc, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	switch sl := sel.GetSelector().(type) {
	case *pb.ProcessSelector_Pid:
		if p, ok := ps.byID[sl.Pid]; ok {
			return p, nil
		}
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("process with pid %d not found", sl.Pid))
	case *pb.ProcessSelector_Tag:
		for _, p := range ps.byID {
			if p.tag == sl.Tag {
				return p, nil
			}
		}
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("process with tag %s not found", sl.Tag))
	}
	return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("invalid process selector"))
}

func (ps *processes) killAll() { ps.signalAll(syscall.SIGKILL) }

// wait returns when every process has been reaped and its end
// published, or after limit: a process that left its group can hold the
// output pipes open.
func (ps *processes) wait(limit time.Duration) {
	ps.mu.Lock()
	var dones []chan struct{}
	for p := range ps.live {
		dones = append(dones, p.done)
	}
	ps.mu.Unlock()
	timeout := time.After(limit)
	for _, d := range dones {
		select {
		case <-d:
		case <-timeout:
			return
		}
	}
}

// signalAll signals every process of every session the sandbox's
// processes lead: each is started in a session of its own, and a command
// may put its children in process groups of their own (abx's exec does),
// which a signal to the leader's group would miss. Pausing a sandbox
// stops all of it, as freezing a real one does. (A sandbox with a box
// freezes and kills the box instead: its pids are the box's, which the
// scan of this machine's sessions must not take for its own.)
func (ps *processes) signalAll(sig syscall.Signal) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	sessions := map[int]bool{}
	for _, p := range ps.byID {
		p.cmd.Process.SignalGroup(sig)
		sessions[p.cmd.Process.Pid()] = true
	}
	if ps.s.opts.Isolated {
		return
	}
	for _, pid := range sessionMembers(sessions) {
		_ = syscall.Kill(pid, sig)
	}
}

// sessionMembers lists the processes whose session is one of sessions,
// from /proc; none where there is no /proc.
func sessionMembers(sessions map[int]bool) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces
		// and parentheses, so fields are counted after its last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 4 {
			continue
		}
		if sid, err := strconv.Atoi(f[3]); err == nil && sessions[sid] {
			out = append(out, pid)
		}
	}
	return out
}

// processService implements envd's Process service.
type processService struct {
	processconnect.UnimplementedProcessHandler
	s *Server
}

func (h *processService) Start(ctx context.Context, req *connect.Request[pb.StartRequest], stream *connect.ServerStream[pb.StartResponse]) error {
	if err := h.s.needUser(req.Header()); err != nil {
		return err
	}
	user, err := checkUser(userOf(req.Header()))
	if err != nil {
		return err
	}
	p, err := h.s.procs.start(req.Msg, user)
	if err != nil {
		return err
	}
	events, detach := p.subscribe()
	defer detach()
	go p.run(h.s.procs)
	// Connect-Timeout-Ms is the process's own deadline: when it passes the
	// process is killed, whether or not anyone is still attached.
	if deadline, ok := ctx.Deadline(); ok {
		timer := time.AfterFunc(time.Until(deadline), func() { h.s.procs.killGroup(p) })
		go func() { <-p.done; timer.Stop() }()
	}
	if err := stream.Send(&pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{
		Start: &pb.ProcessEvent_StartEvent{Pid: p.pid}}}}); err != nil {
		return err
	}
	return forward(ctx, events, keepaliveOf(req.Header()), h.s.isClosed, func(ev *pb.ProcessEvent) error { return stream.Send(&pb.StartResponse{Event: ev}) })
}

func (h *processService) Connect(ctx context.Context, req *connect.Request[pb.ConnectRequest], stream *connect.ServerStream[pb.ConnectResponse]) error {
	p, err := h.s.procs.get(req.Msg.GetProcess())
	if err != nil {
		return err
	}
	events, detach := p.subscribe()
	defer detach()
	if err := stream.Send(&pb.ConnectResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{
		Start: &pb.ProcessEvent_StartEvent{Pid: p.pid}}}}); err != nil {
		return err
	}
	return forward(ctx, events, keepaliveOf(req.Header()), h.s.isClosed, func(ev *pb.ProcessEvent) error { return stream.Send(&pb.ConnectResponse{Event: ev}) })
}

// forward sends events until the end; a client that goes away only
// detaches.
// keepaliveOf is the interval of keepalive events a stream's client asked
// for, in seconds, as envd reads it (Keepalive-Ping-Interval, or the older
// X-Keepalive-Interval); envd's default is 90 s.
func keepaliveOf(h http.Header) time.Duration {
	for _, name := range []string{"Keepalive-Ping-Interval", "X-Keepalive-Interval"} {
		if n, err := strconv.ParseInt(h.Get(name), 10, 32); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return 90 * time.Second
}

// forward sends the process's events as they come, and a keepalive event
// whenever none came for the interval, as envd does. A process that ended
// because its sandbox was killed (gone) has no end event: envd went with
// the sandbox, and its clients see the connection drop, as a cluster's do.
func forward(ctx context.Context, events chan *pb.ProcessEvent, keepalive time.Duration, gone func() bool, send func(*pb.ProcessEvent) error) error {
	tick := time.NewTicker(keepalive)
	defer tick.Stop()
	hold := holder(ctx)
	for {
		select {
		case <-tick.C:
			hold(false)
			if err := send(&pb.ProcessEvent{Event: &pb.ProcessEvent_Keepalive{Keepalive: &pb.ProcessEvent_KeepAlive{}}}); err != nil {
				return err
			}
		case ev := <-events:
			if ev.GetEnd() != nil && gone() {
				panic(http.ErrAbortHandler) // the server closes the connection, and says nothing
			}
			hold(len(events) > 0)
			if err := send(ev); err != nil {
				return err
			}
			if ev.GetEnd() != nil {
				return nil
			}
			tick.Reset(keepalive)
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return connect.NewError(connect.CodeDeadlineExceeded, ctx.Err())
			}
			return connect.NewError(connect.CodeCanceled, ctx.Err())
		}
	}
}

func (h *processService) List(context.Context, *connect.Request[pb.ListRequest]) (*connect.Response[pb.ListResponse], error) {
	ps := h.s.procs
	ps.mu.Lock()
	defer ps.mu.Unlock()
	out := &pb.ListResponse{}
	for _, p := range ps.byID {
		info := &pb.ProcessInfo{Config: p.cfg, Pid: p.pid}
		if p.tag != "" {
			info.Tag = &p.tag
		}
		out.Processes = append(out.Processes, info)
	}
	sort.Slice(out.Processes, func(i, j int) bool { return out.Processes[i].Pid < out.Processes[j].Pid })
	return connect.NewResponse(out), nil
}

func (h *processService) SendSignal(_ context.Context, req *connect.Request[pb.SendSignalRequest]) (*connect.Response[pb.SendSignalResponse], error) {
	p, err := h.s.procs.get(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	var sig syscall.Signal
	switch req.Msg.GetSignal() {
	case pb.Signal_SIGNAL_SIGTERM:
		sig = syscall.SIGTERM
	case pb.Signal_SIGNAL_SIGKILL:
		sig = syscall.SIGKILL
	default:
		return nil, connect.NewError(connect.CodeUnimplemented, fmt.Errorf("invalid signal: %s", req.Msg.GetSignal()))
	}
	// Through the process handle (a pidfd), so that a process reaped since
	// the look-up is not mistaken for whoever has its pid now.
	if err := p.cmd.Process.Signal(sig); errors.Is(err, os.ErrProcessDone) {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("process with pid %d not found", p.pid))
	} else if err != nil {
		return nil, connect.NewError(connect.CodeInternal, err)
	}
	return connect.NewResponse(&pb.SendSignalResponse{}), nil
}

func (h *processService) SendInput(ctx context.Context, req *connect.Request[pb.SendInputRequest]) (*connect.Response[pb.SendInputResponse], error) {
	p, err := h.s.procs.get(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if err := p.input(ctx, req.Msg.GetInput()); err != nil {
		return nil, err
	}
	return connect.NewResponse(&pb.SendInputResponse{}), nil
}

// StreamInput takes a process (the start event), then its input, in
// order, until the client closes the stream.
func (h *processService) StreamInput(ctx context.Context, stream *connect.ClientStream[pb.StreamInputRequest]) (*connect.Response[pb.StreamInputResponse], error) {
	var p *proc
	for stream.Receive() {
		switch ev := stream.Msg().GetEvent().(type) {
		case *pb.StreamInputRequest_Start:
			found, err := h.s.procs.get(ev.Start.GetProcess())
			if err != nil {
				return nil, err
			}
			p = found
		case *pb.StreamInputRequest_Data:
			if p == nil {
				// envd 0.2.10 fails the call by a crash here; this says why.
				return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("input before the start event: no process selected"))
			}
			if err := p.input(ctx, ev.Data.GetInput()); err != nil {
				return nil, err
			}
		case *pb.StreamInputRequest_Keepalive:
		default:
			return nil, connect.NewError(connect.CodeUnimplemented, fmt.Errorf("invalid event type %T", ev))
		}
	}
	if err := stream.Err(); err != nil {
		return nil, connect.NewError(connect.CodeUnknown, fmt.Errorf("error streaming input: %w", err))
	}
	return connect.NewResponse(&pb.StreamInputResponse{}), nil
}

// input writes one ProcessInput where envd writes it: pty input to the
// terminal, stdin to the stdin pipe; either to a process that has the
// other is an error, worded as envd words it.
func (p *proc) input(ctx context.Context, in *pb.ProcessInput) error {
	switch in.GetInput().(type) {
	case *pb.ProcessInput_Pty:
		if p.tty == nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("error writing to tty: %w", errTTYNotAssigned))
		}
		if err := p.writeTTY(ctx, in.GetPty()); err != nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("error writing to tty: error writing to tty of process '%d': %w", p.pid, err))
		}
	case *pb.ProcessInput_Stdin:
		if p.tty != nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("error writing to stdin: %w", errTTYAssigned))
		}
		if p.stdin == nil {
			return connect.NewError(connect.CodeFailedPrecondition, errors.New("stdin not enabled for this process"))
		}
		if _, err := p.stdin.Write(in.GetStdin()); err != nil {
			return connect.NewError(connect.CodeInternal, fmt.Errorf("error writing to stdin: error writing to stdin of process '%d': %w", p.pid, err))
		}
	default:
		return connect.NewError(connect.CodeUnimplemented, fmt.Errorf("invalid input type %T", in.GetInput()))
	}
	return nil
}

func (h *processService) CloseStdin(_ context.Context, req *connect.Request[pb.CloseStdinRequest]) (*connect.Response[pb.CloseStdinResponse], error) {
	if !h.s.version.AtLeast(envd.CloseStdin) {
		return nil, connect.NewError(connect.CodeUnimplemented, errors.New("process.Process.CloseStdin is not implemented"))
	}
	p, err := h.s.procs.get(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if p.tty != nil {
		return nil, connect.NewError(connect.CodeUnknown, errors.New("error closing stdin: cannot close stdin for PTY process — send Ctrl+D (0x04) instead"))
	}
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	return connect.NewResponse(&pb.CloseStdinResponse{}), nil
}
