package envd

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

// fakeProcess answers as envd does, in envd's own words.
type fakeProcess struct {
	processconnect.UnimplementedProcessHandler
	closes atomic.Int32
}

func (*fakeProcess) Start(context.Context, *connect.Request[pb.StartRequest], *connect.ServerStream[pb.StartResponse]) error {
	return connect.NewError(connect.CodeInvalidArgument,
		errors.New(`error starting process: exec: "nope": executable file not found in $PATH`))
}

func (*fakeProcess) SendInput(context.Context, *connect.Request[pb.SendInputRequest]) (*connect.Response[pb.SendInputResponse], error) {
	return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("stdin not enabled or closed"))
}

func (*fakeProcess) SendSignal(context.Context, *connect.Request[pb.SendSignalRequest]) (*connect.Response[pb.SendSignalResponse], error) {
	return nil, connect.NewError(connect.CodeNotFound, errors.New("process with pid 7 not found"))
}

func (f *fakeProcess) CloseStdin(context.Context, *connect.Request[pb.CloseStdinRequest]) (*connect.Response[pb.CloseStdinResponse], error) {
	f.closes.Add(1)
	return connect.NewResponse(&pb.CloseStdinResponse{}), nil
}

func fakeEnvd(t *testing.T, version string) (*Client, *fakeProcess) {
	t.Helper()
	f := &fakeProcess{}
	_, h := processconnect.NewProcessHandler(f)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return New(ts.Client(), Endpoint{URL: ts.URL, Version: version}, ""), f
}

func TestEnvdWordsBecomeSentinels(t *testing.T) {
	c, _ := fakeEnvd(t, "0.2.10")
	ctx := context.Background()
	_, startErr := c.Start(ctx, Command{Cmd: "nope"}, func(Event) error { return nil })
	cases := []struct {
		name string
		err  error
		is   error // nil: neither sentinel
		code abxerr.Code
		msg  string
	}{
		{"missing command", startErr, ErrCommandNotFound, abxerr.Rejected,
			`error starting process: exec: "nope": executable file not found in $PATH`},
		{"no stdin", c.SendStdin(ctx, 7, []byte("x")), ErrNoStdin, abxerr.Rejected, "stdin not enabled or closed"},
		{"other", c.Signal(ctx, 7, false), nil, abxerr.NotFound, "process with pid 7 not found"},
	}
	for _, tc := range cases {
		err := AsError(tc.err)
		var e *abxerr.Error
		if !errors.As(err, &e) || e.Code != tc.code || e.Message != tc.msg || e.Hint != "" {
			t.Errorf("%s: %#v, want %s %q", tc.name, err, tc.code, tc.msg)
			continue
		}
		for _, s := range []error{ErrNoStdin, ErrCommandNotFound} {
			if got := errors.Is(err, s); got != errors.Is(s, tc.is) {
				t.Errorf("%s: errors.Is(%v) = %v", tc.name, s, got)
			}
		}
		// The Connect error stays in the chain, and a copy of the error
		// (as callers make to set Exit) still matches.
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeOf(tc.err) {
			t.Errorf("%s: lost the Connect error: %v", tc.name, err)
		}
		cp := *e
		if tc.is != nil && !errors.Is(&cp, tc.is) {
			t.Errorf("%s: a copy lost %v", tc.name, tc.is)
		}
	}
	// A message that merely looks alike but is not envd's stays plain.
	if err := AsError(errors.New("stdin not enabled")); errors.Is(err, ErrNoStdin) {
		t.Errorf("a non-envd error matched: %v", err)
	}
}

func TestCloseStdinNeedsEnvd052(t *testing.T) {
	ctx := context.Background()
	old, f := fakeEnvd(t, "0.5.1")
	if old.CanCloseStdin() {
		t.Error("0.5.1 cannot close stdin")
	}
	for name, err := range map[string]error{"CheckCloseStdin": old.CheckCloseStdin(), "CloseStdin": old.CloseStdin(ctx, 7)} {
		var e *abxerr.Error
		if !errors.As(err, &e) || e.Code != abxerr.Unsupported ||
			e.Message != "this sandbox's envd 0.5.1 cannot close stdin (it needs 0.5.2 or newer)" ||
			e.Hint != "send the data without --close, or end the input in a way the program understands" {
			t.Errorf("%s on 0.5.1: %#v", name, err)
		}
		if got := AsError(err); !errors.Is(got, err) || got.Error() != err.Error() {
			t.Errorf("%s: AsError changed %v", name, err)
		}
	}
	if n := f.closes.Load(); n != 0 {
		t.Errorf("0.5.1 was sent %d CloseStdin calls", n)
	}

	c, f := fakeEnvd(t, "0.5.2")
	if !c.CanCloseStdin() || c.CheckCloseStdin() != nil {
		t.Error("0.5.2 can close stdin")
	}
	if err := c.CloseStdin(ctx, 7); err != nil || f.closes.Load() != 1 {
		t.Errorf("CloseStdin on 0.5.2: %v, %d calls", err, f.closes.Load())
	}
}
