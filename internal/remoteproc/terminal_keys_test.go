package remoteproc

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

// fakeTerminal is envd with one process, pid 7, that runs until ended is
// closed; its SendInput answers what input says, and keeps what it took.
type fakeTerminal struct {
	processconnect.UnimplementedProcessHandler
	input    func(ctx context.Context, keys []byte) error
	ended    chan struct{}
	inputs   atomic.Int32 // SendInput calls with keys in them
	probes   atomic.Int32 // SendInput calls without
	connects atomic.Int32

	mu    sync.Mutex
	typed []byte
}

func newFakeTerminal(t *testing.T, input func(ctx context.Context, keys []byte) error) (*fakeTerminal, *envd.Client) {
	t.Helper()
	f := &fakeTerminal{input: input, ended: make(chan struct{})}
	_, h := processconnect.NewProcessHandler(f)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return f, envd.New(ts.Client(), envd.Endpoint{URL: ts.URL, Version: "0.2.10"}, "")
}

func (f *fakeTerminal) run(ctx context.Context, stream *connect.ServerStream[pb.StartResponse]) error {
	started := &pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 7}}}}
	if err := stream.Send(started); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-f.ended:
	}
	end := &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{ExitCode: 0, Exited: true, Status: "exit status 0"}}
	return stream.Send(&pb.StartResponse{Event: &pb.ProcessEvent{Event: end}})
}

func (f *fakeTerminal) Start(ctx context.Context, _ *connect.Request[pb.StartRequest], stream *connect.ServerStream[pb.StartResponse]) error {
	return f.run(ctx, stream)
}

func (f *fakeTerminal) Connect(ctx context.Context, _ *connect.Request[pb.ConnectRequest], stream *connect.ServerStream[pb.ConnectResponse]) error {
	f.connects.Add(1)
	started := &pb.ConnectResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 7}}}}
	if err := stream.Send(started); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

func (f *fakeTerminal) SendInput(ctx context.Context, req *connect.Request[pb.SendInputRequest]) (*connect.Response[pb.SendInputResponse], error) {
	keys := req.Msg.GetInput().GetPty()
	if len(keys) == 0 {
		f.probes.Add(1)
	} else {
		f.inputs.Add(1)
	}
	if err := f.input(ctx, keys); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.typed = append(f.typed, keys...)
	f.mu.Unlock()
	return connect.NewResponse(&pb.SendInputResponse{}), nil
}

func (f *fakeTerminal) Update(context.Context, *connect.Request[pb.UpdateRequest]) (*connect.Response[pb.UpdateResponse], error) {
	return connect.NewResponse(&pb.UpdateResponse{}), nil
}

func (f *fakeTerminal) SendSignal(context.Context, *connect.Request[pb.SendSignalRequest]) (*connect.Response[pb.SendSignalResponse], error) {
	return connect.NewResponse(&pb.SendSignalResponse{}), nil
}

func (f *fakeTerminal) List(context.Context, *connect.Request[pb.ListRequest]) (*connect.Response[pb.ListResponse], error) {
	return connect.NewResponse(&pb.ListResponse{Processes: []*pb.ProcessInfo{{Pid: 7, Config: &pb.ProcessConfig{Cmd: "/bin/bash"}}}}), nil
}

func (f *fakeTerminal) typedSoFar() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.typed)
}

// session runs a terminal session on c in the background, its keys typed
// into the pipe it returns; the channel gets Run's outcome.
func session(t *testing.T, c *envd.Client, pid uint32) (*io.PipeWriter, <-chan error) {
	t.Helper()
	keys, typing := io.Pipe()
	t.Cleanup(func() { _ = typing.Close() })
	done := make(chan error, 1)
	go func() {
		term := &Terminal{Spec: Spec{Argv: []string{"/bin/bash", "-i", "-l"}}, PID: pid, Size: envd.Size{Cols: 80, Rows: 24},
			Keys: keys, Screen: io.Discard, Detach: []byte{0x10, 0x11}}
		_, err := term.Run(t.Context(), c)
		done <- err
	}()
	return typing, done
}

// sessionEnd waits (generously) for a session's end.
func sessionEnd(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("the session did not end within a minute")
		return nil
	}
}

// An answer of envd's that refuses the keys (a process without a
// terminal, one that is gone) is not asked again: the session ends with
// it, and the keys after it are never sent.
func TestKeysEnvdRefusesAreNotSentAgain(t *testing.T) {
	t.Parallel()
	for _, refusal := range []*connect.Error{
		connect.NewError(connect.CodeInternal, errors.New("error writing to tty: tty not assigned to process — input should be written to the stdin, not the tty")),
		connect.NewError(connect.CodeFailedPrecondition, errors.New("tty not assigned to process — input should be written to the stdin, not the tty")),
		connect.NewError(connect.CodeNotFound, errors.New("process with pid 7 not found")),
	} {
		t.Run(refusal.Code().String(), func(t *testing.T) {
			t.Parallel()
			f, c := newFakeTerminal(t, func(context.Context, []byte) error { return refusal })
			typing, done := session(t, c, 0)
			if _, err := typing.Write([]byte("a")); err != nil {
				t.Fatal(err)
			}
			// The keys typed after the refusal are read (a detach would
			// still be seen), never sent.
			go func() { _, _ = typing.Write([]byte("bc")) }()
			err := sessionEnd(t, done)
			if !errors.Is(err, ErrKeysRefused) || !strings.Contains(err.Error(), refusal.Message()) {
				t.Fatalf("the session ended with %v, want the refusal", err)
			}
			if n := f.inputs.Load(); n != 1 {
				t.Errorf("SendInput was called %d times, want once", n)
			}
		})
	}
}

// A failure that may pass (a proxy's 503, envd's unavailable) is tried
// again, the same keys, in order, until it passes.
func TestKeysAreSentAgainAfterAFailureThatMayPass(t *testing.T) {
	t.Parallel()
	var failures atomic.Int32
	f, c := newFakeTerminal(t, func(context.Context, []byte) error {
		if failures.Add(1) <= 2 {
			return connect.NewError(connect.CodeUnavailable, errors.New("upstream connect error"))
		}
		return nil
	})
	typing, done := session(t, c, 0)
	if _, err := typing.Write([]byte("ls\r")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for f.typedSoFar() != "ls\r" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(f.ended)
	if err := sessionEnd(t, done); err != nil {
		t.Fatal(err)
	}
	if got := f.typedSoFar(); got != "ls\r" {
		t.Fatalf("typed %q, want %q", got, "ls\r")
	}
}

// The detach keys end the session at once while a SendInput hangs: the
// keys are read whatever the sends do.
func TestTheDetachKeysWorkWhileKeysCannotBeSent(t *testing.T) {
	t.Parallel()
	sent := make(chan struct{}, 1)
	_, c := newFakeTerminal(t, func(ctx context.Context, _ []byte) error {
		select {
		case sent <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	})
	typing, done := session(t, c, 0)
	if _, err := typing.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	<-sent
	// Written aside: a session that no longer reads would hold the write.
	go func() { _, _ = typing.Write([]byte("\x03b\x10\x11")) }()
	var d *DetachedError
	if err := sessionEnd(t, done); !errors.As(err, &d) || d.PID != 7 {
		t.Fatalf("the session ended with %v, want a detach", err)
	}
}

// Joining a process without a terminal is refused before the session
// starts (nothing is streamed, the local terminal is never made raw): an
// empty SendInput to its terminal, which types nothing, is envd's answer.
func TestAttachRefusesAProcessWithoutATerminal(t *testing.T) {
	t.Parallel()
	f, c := newFakeTerminal(t, func(context.Context, []byte) error {
		return connect.NewError(connect.CodeInternal, errors.New("error writing to tty: tty not assigned to process — input should be written to the stdin, not the tty"))
	})
	var started atomic.Bool
	term := &Terminal{PID: 7, Size: envd.Size{Cols: 80, Rows: 24}, Keys: strings.NewReader(""), Screen: io.Discard,
		Started: func(uint32) { started.Store(true) }}
	_, err := term.Run(t.Context(), c)
	if !errors.Is(err, ErrNoTerminal) || abxerr.From(err).Code != abxerr.InvalidInput {
		t.Fatalf("got %v, want the refusal of a process without a terminal", err)
	}
	if started.Load() || f.connects.Load() != 0 || f.probes.Load() != 1 {
		t.Errorf("started %v, %d Connect calls, %d probes: want none, none, one", started.Load(), f.connects.Load(), f.probes.Load())
	}

	// A process on a terminal takes the probe, which types nothing.
	f, c = newFakeTerminal(t, func(context.Context, []byte) error { return nil })
	typing, done := session(t, c, 7)
	if _, err := typing.Write([]byte("x\x10\x11")); err != nil {
		t.Fatal(err)
	}
	var d *DetachedError
	if err := sessionEnd(t, done); !errors.As(err, &d) {
		t.Fatalf("the session ended with %v, want a detach", err)
	}
	if f.probes.Load() != 1 || f.connects.Load() != 1 {
		t.Errorf("%d probes, %d Connect calls: want one each", f.probes.Load(), f.connects.Load())
	}
}
