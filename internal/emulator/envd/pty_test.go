//go:build linux

package envd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	"github.com/abx-dev/abx/internal/emulator/spawn"
	client "github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

// asUser sends the access token and user, as every client of envd 0.2.10
// does.
type asUser struct{}

func (asUser) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Access-Token", token)
	r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("user:")))
	return http.DefaultTransport.RoundTrip(r)
}

// ptyServer serves a 0.2.10 envd, isolated or not, and returns a raw
// Connect client of its process service.
func ptyServer(t *testing.T, isolated bool) processconnect.ProcessClient {
	t.Helper()
	opts := Options{Root: t.TempDir(), AccessToken: token}
	if isolated {
		jailtest.Need(t)
		state := t.TempDir()
		opts = Options{Root: filepath.Join(state, "sandbox"), AccessToken: token, Isolated: true, Hide: []string{state}}
	}
	s := New(opts)
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	return processconnect.NewProcessClient(&http.Client{Transport: asUser{}}, ts.URL)
}

// session is one process's event stream, as a client reads it.
type session struct {
	c      processconnect.ProcessClient
	pid    uint32
	cancel context.CancelFunc

	mu     sync.Mutex
	pty    bytes.Buffer
	plain  int // stdout and stderr events: none may come for a terminal
	widest int // the largest pty event
	end    *pb.ProcessEvent_EndEvent
	err    error
	ended  chan struct{}
}

func byPID(pid uint32) *pb.ProcessSelector {
	return &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}
}

func startSession(t *testing.T, c processconnect.ProcessClient, req *pb.StartRequest) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	stream, err := c.Start(ctx, connect.NewRequest(req))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if !stream.Receive() {
		cancel()
		t.Fatalf("no start event: %v", stream.Err())
	}
	s := &session{c: c, pid: stream.Msg().GetEvent().GetStart().GetPid(), cancel: cancel, ended: make(chan struct{})}
	t.Cleanup(func() {
		cancel()
		<-s.ended
	})
	go s.follow(stream.Receive, func() *pb.ProcessEvent { return stream.Msg().GetEvent() }, stream.Err)
	return s
}

// connectSession attaches to a running process, as Connect does.
func connectSession(t *testing.T, c processconnect.ProcessClient, pid uint32) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	stream, err := c.Connect(ctx, connect.NewRequest(&pb.ConnectRequest{Process: byPID(pid)}))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if !stream.Receive() || stream.Msg().GetEvent().GetStart().GetPid() != pid {
		cancel()
		t.Fatalf("no start event: %v", stream.Err())
	}
	s := &session{c: c, pid: pid, cancel: cancel, ended: make(chan struct{})}
	t.Cleanup(func() {
		cancel()
		<-s.ended
	})
	go s.follow(stream.Receive, func() *pb.ProcessEvent { return stream.Msg().GetEvent() }, stream.Err)
	return s
}

func (s *session) follow(receive func() bool, msg func() *pb.ProcessEvent, streamErr func() error) {
	defer close(s.ended)
	for receive() {
		ev := msg()
		s.mu.Lock()
		switch {
		case ev.GetData().GetPty() != nil:
			s.pty.Write(ev.GetData().GetPty())
			s.widest = max(s.widest, len(ev.GetData().GetPty()))
		case ev.GetData() != nil:
			s.plain++
		case ev.GetEnd() != nil:
			s.end = ev.GetEnd()
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.err = streamErr()
	s.mu.Unlock()
}

func (s *session) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pty.String()
}

// waitOutput waits (30 s at most) until the terminal has shown want.
func (s *session) waitOutput(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(s.output(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q on the terminal within 30 s; it shows %q", want, s.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEnd waits (30 s at most) for the end event.
func (s *session) waitEnd(t *testing.T) *pb.ProcessEvent_EndEvent {
	t.Helper()
	select {
	case <-s.ended:
	case <-time.After(30 * time.Second):
		t.Fatalf("no end within 30 s; the terminal shows %q", s.output())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.end == nil {
		t.Fatalf("the stream ended without an end event: %v", s.err)
	}
	return s.end
}

func ptyInput(b []byte) *pb.ProcessInput {
	return &pb.ProcessInput{Input: &pb.ProcessInput_Pty{Pty: b}}
}

func (s *session) write(t *testing.T, in string) {
	t.Helper()
	_, err := s.c.SendInput(context.Background(), connect.NewRequest(&pb.SendInputRequest{Process: byPID(s.pid), Input: ptyInput([]byte(in))}))
	if err != nil {
		t.Fatal(err)
	}
}

func (s *session) resize(t *testing.T, cols, rows uint32) error {
	t.Helper()
	_, err := s.c.Update(context.Background(), connect.NewRequest(&pb.UpdateRequest{Process: byPID(s.pid),
		Pty: &pb.PTY{Size: &pb.PTY_Size{Cols: cols, Rows: rows}}}))
	return err
}

// shell starts an interactive bash on a terminal of cols x rows, as
// E2B's SDKs start one (TERM from the client), without the machine's rc
// files.
func shell(t *testing.T, c processconnect.ProcessClient, cols, rows uint32) *session {
	t.Helper()
	return startSession(t, c, &pb.StartRequest{
		Process: &pb.ProcessConfig{Cmd: "/bin/bash", Args: []string{"--norc", "--noprofile", "-i"},
			Envs: map[string]string{"TERM": "xterm-256color", "PS1": "$ "}},
		Pty: &pb.PTY{Size: &pb.PTY_Size{Cols: cols, Rows: rows}},
	})
}

// The terminal's whole life: its name and size, a resize, ^C, a 1 MB
// paste and input streamed in order, exit, and only pty events.
func terminalLife(t *testing.T, isolated bool) {
	c := ptyServer(t, isolated)
	sh := shell(t, c, 101, 33)
	sh.write(t, "tty; stty size; echo $TERM\r")
	sh.waitOutput(t, "33 101\r\nxterm-256color\r\n")
	if out := sh.output(); !strings.Contains(out, "\r/dev/pts/") {
		t.Errorf("tty: %q", out)
	}

	if err := sh.resize(t, 120, 40); err != nil {
		t.Fatal(err)
	}
	sh.write(t, "stty size\r")
	sh.waitOutput(t, "40 120\r\n")

	// A connection made now sees what comes from now on.
	other := connectSession(t, c, sh.pid)

	// The job prints once it has the terminal (bash gives it the terminal
	// before it runs), so ^C reaches it.
	sh.write(t, "sh -c 'echo sl\"\"eeping; exec sleep 30'\r")
	sh.waitOutput(t, "sleeping\r\n")
	sh.write(t, "\x03")
	sh.write(t, "echo status $?\r")
	sh.waitOutput(t, "status 130\r\n")
	other.waitOutput(t, "status 130\r\n")

	// A paste of 1 MB arrives whole, with the terminal raw.
	const size = 1 << 20
	sh.write(t, "stty raw -echo; echo RA''W; head -c "+fmt.Sprint(size)+" | wc -c; stty sane\r")
	sh.waitOutput(t, "RAW")
	paste := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz0123456789\n"), size/37+1)[:size]
	sh.write(t, string(paste))
	sh.waitOutput(t, fmt.Sprint(size))

	// Input streamed in many pieces arrives in order.
	sh.write(t, "stty raw -echo; echo ST''REAM; head -c "+fmt.Sprint(size)+" | sha256sum; stty sane\r")
	sh.waitOutput(t, "STREAM")
	var streamed bytes.Buffer
	in := sh.c.StreamInput(context.Background())
	if err := in.Send(&pb.StreamInputRequest{Event: &pb.StreamInputRequest_Start{Start: &pb.StreamInputRequest_StartEvent{Process: byPID(sh.pid)}}}); err != nil {
		t.Fatal(err)
	}
	for i := 0; streamed.Len() < size; i++ {
		piece := []byte(strings.Repeat(fmt.Sprintf("%d,", i), 1+i%50))
		piece = piece[:min(len(piece), size-streamed.Len())]
		streamed.Write(piece)
		if err := in.Send(&pb.StreamInputRequest{Event: &pb.StreamInputRequest_Data{Data: &pb.StreamInputRequest_DataEvent{Input: ptyInput(piece)}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.CloseAndReceive(); err != nil {
		t.Fatal(err)
	}
	sh.waitOutput(t, fmt.Sprintf("%x", sha256.Sum256(streamed.Bytes())))

	sh.write(t, "exit 3\r")
	end := sh.waitEnd(t)
	if end.GetExitCode() != 3 || !end.GetExited() || end.GetStatus() != "exit status 3" {
		t.Errorf("end: %v", end)
	}
	if oe := other.waitEnd(t); oe.GetExitCode() != 3 {
		t.Errorf("the other connection's end: %v", oe)
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.plain != 0 || sh.widest > ptyChunk {
		t.Errorf("%d stdout or stderr events, pty events up to %d bytes", sh.plain, sh.widest)
	}
}

func TestTerminalWithoutIsolation(t *testing.T) {
	t.Parallel()
	terminalLife(t, false)
}

func TestSandboxTerminal(t *testing.T) {
	t.Parallel()
	terminalLife(t, true)
}

// Input and resizes that do not fit the process get envd 0.2.10's
// answers.
func TestTerminalMismatchesAsEnvd0210(t *testing.T) {
	t.Parallel()
	c := ptyServer(t, false)
	sh := shell(t, c, 80, 24)
	plain := startSession(t, c, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/cat"}})
	ctx := context.Background()

	_, err := c.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{Process: byPID(sh.pid),
		Input: &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: []byte("x")}}}))
	wantErr(t, "stdin to a terminal", err, connect.CodeInternal,
		"error writing to stdin: tty assigned to process — input should be written to the pty, not the stdin")

	_, err = c.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{Process: byPID(plain.pid), Input: ptyInput([]byte("x"))}))
	wantErr(t, "pty input to a plain process", err, connect.CodeInternal,
		"error writing to tty: tty not assigned to process — input should be written to the stdin, not the tty")

	wantErr(t, "resizing a plain process", plain.resize(t, 100, 30), connect.CodeInternal, "error resizing tty: tty not assigned to process")

	// Terminal input of no bytes, abx's question whether a process has a
	// terminal: refused for a plain one as any terminal input, taken by a
	// terminal, where it types nothing.
	_, err = c.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{Process: byPID(plain.pid), Input: ptyInput([]byte{})}))
	wantErr(t, "no pty input to a plain process", err, connect.CodeInternal,
		"error writing to tty: tty not assigned to process — input should be written to the stdin, not the tty")
	if _, err := c.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{Process: byPID(sh.pid), Input: ptyInput([]byte{})})); err != nil {
		t.Errorf("no pty input to a terminal: %v", err)
	}

	if _, err := c.Update(ctx, connect.NewRequest(&pb.UpdateRequest{Process: byPID(plain.pid)})); err != nil {
		t.Errorf("an update without a pty: %v", err)
	}
	_, err = c.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{Process: byPID(sh.pid), Input: &pb.ProcessInput{}}))
	wantErr(t, "no input", err, connect.CodeUnimplemented, "invalid input type <nil>")
	_, err = c.Update(ctx, connect.NewRequest(&pb.UpdateRequest{Process: byPID(99999999), Pty: &pb.PTY{Size: &pb.PTY_Size{Cols: 1, Rows: 1}}}))
	wantErr(t, "an unknown pid", err, connect.CodeNotFound, "process with pid 99999999 not found")

	in := c.StreamInput(ctx)
	_ = in.Send(&pb.StreamInputRequest{Event: &pb.StreamInputRequest_Start{Start: &pb.StreamInputRequest_StartEvent{Process: byPID(plain.pid)}}})
	_ = in.Send(&pb.StreamInputRequest{Event: &pb.StreamInputRequest_Data{Data: &pb.StreamInputRequest_DataEvent{Input: ptyInput([]byte("x"))}}})
	_, err = in.CloseAndReceive()
	wantErr(t, "streamed pty input to a plain process", err, connect.CodeInternal,
		"error writing to tty: tty not assigned to process — input should be written to the stdin, not the tty")

	// Stdin still reaches the plain process, on its stdout.
	_, err = c.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{Process: byPID(plain.pid),
		Input: &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: []byte("x")}}}))
	if err != nil {
		t.Errorf("stdin to a plain process: %v", err)
	}

	// A command not found is envd's pty start error.
	_, err = startRaw(c, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "no-such-cmd", Args: []string{"-x"}},
		Pty: &pb.PTY{Size: &pb.PTY_Size{Cols: 80, Rows: 24}}})
	wantErr(t, "a missing command", err, connect.CodeInvalidArgument,
		`error starting pty with command 'no-such-cmd -x' in dir '/home/user' with '80' cols and '24' rows: exec: "no-such-cmd": executable file not found in $PATH`)
}

// startRaw starts a process and returns its first event, or the error.
func startRaw(c processconnect.ProcessClient, req *pb.StartRequest) (*pb.ProcessEvent, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	stream, err := c.Start(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	defer func() { _ = stream.Close() }()
	if !stream.Receive() {
		return nil, stream.Err()
	}
	return stream.Msg().GetEvent(), nil
}

func wantErr(t *testing.T, what string, err error, code connect.Code, msg string) {
	t.Helper()
	var ce *connect.Error
	if err == nil || !errors.As(err, &ce) || ce.Code() != code || ce.Message() != msg {
		t.Errorf("%s: got %v, want %s: %s", what, err, code, msg)
	}
}

// A job left on the terminal does not hold the end back for more than
// ptyDrain: the end comes, with the shell's status and all it wrote. (The
// job outlasts ptyDrain and ends on its own: without a box, nothing
// reaches it once its shell has ended.)
func TestTerminalEndsDespiteAJobLeftOnIt(t *testing.T) {
	t.Parallel()
	c := ptyServer(t, false)
	sh := startSession(t, c, &pb.StartRequest{
		Process: &pb.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-c", "trap '' HUP; sleep 8 & echo bye; exit 4"}},
		Pty:     &pb.PTY{Size: &pb.PTY_Size{Cols: 80, Rows: 24}},
	})
	if end := sh.waitEnd(t); end.GetExitCode() != 4 || !strings.Contains(sh.output(), "bye\r\n") {
		t.Errorf("end %v, output %q", end, sh.output())
	}
}

// Versions with CloseStdin refuse it for a terminal: its end of input is
// ^D.
func TestTerminalStdinCannotBeClosed(t *testing.T) {
	t.Parallel()
	s := New(Options{Root: t.TempDir(), AccessToken: token, Version: "0.5.2"})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	c := processconnect.NewProcessClient(&http.Client{Transport: asUser{}}, ts.URL)
	sh := startSession(t, c, &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "/bin/cat"},
		Pty: &pb.PTY{Size: &pb.PTY_Size{Cols: 80, Rows: 24}}})
	_, err := c.CloseStdin(context.Background(), connect.NewRequest(&pb.CloseStdinRequest{Process: byPID(sh.pid)}))
	wantErr(t, "closing a terminal's stdin", err, connect.CodeUnknown,
		"error closing stdin: cannot close stdin for PTY process — send Ctrl+D (0x04) instead")
	sh.write(t, "abc\r\x04")
	if end := sh.waitEnd(t); end.GetExitCode() != 0 || !strings.Contains(sh.output(), "abc\r\n") {
		t.Errorf("^D: end %v, output %q", end, sh.output())
	}
}

// An emulator started with SIGINT ignored and signals blocked (a script's
// `abx emulator start &`, nohup, a CI runner) starts a sandbox's
// processes with neither, with or without a box: Ctrl-C on a terminal
// still interrupts its job.
func TestSandboxTerminalUnderInheritedSignals(t *testing.T) {
	t.Parallel()
	jailtest.Rerun(t, "^(TestSandboxTerminal|TestTerminalWithoutIsolation|TestSandboxProcessesStartWithDefaultSignals)$")
}

// A sandbox's process starts with every signal's default disposition and
// none blocked, as under a real init, in a box or not.
func TestSandboxProcessesStartWithDefaultSignals(t *testing.T) {
	t.Parallel()
	if jailtest.IsRerun() && !spawn.InheritsSignals() {
		t.Fatal("started with signals ignored and blocked, yet a child of this process would not inherit them")
	}
	for _, isolated := range []bool{false, true} {
		t.Run(fmt.Sprintf("isolated=%v", isolated), func(t *testing.T) {
			t.Parallel()
			var c *client.Client
			if isolated {
				c, _ = startIsolated(t, "user")
			} else {
				c, _, _ = start(t, "0.2.10", "user")
			}
			out, end, err := run(t, c, "grep -E '^Sig(Blk|Ign):' /proc/self/status")
			if err != nil || end.ExitCode != 0 || out != "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n" {
				t.Errorf("%v, %v:\n%s", err, end, out)
			}
		})
	}
}
