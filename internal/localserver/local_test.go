package localserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/output"
)

type fakeServer struct {
	done   chan struct{}
	err    error
	closed int
}

func (s *fakeServer) Env() []string         { return []string{"X=1"} }
func (s *fakeServer) Done() <-chan struct{} { return s.done }
func (s *fakeServer) Close() error          { s.closed++; return s.err }

// A server that stops serving of itself ends Serve with its reason;
// Ctrl-C ends it quietly.
func TestServeEndsWithTheServer(t *testing.T) {
	t.Parallel()
	s := &fakeServer{done: make(chan struct{}), err: errors.New("listener closed")}
	close(s.done)
	io, _, out, errOut := output.Test(false)
	l := Local{Name: "abx thing", Start: func(bool) (Server, error) { return s, nil },
		Serving:  func(Server) []string { return []string{"serving"} },
		Warnings: func(Server) []string { return []string{"careful"} }}
	err := l.Serve(context.Background(), output.NewPrinter(io))
	if err == nil || !strings.Contains(err.Error(), "abx thing stopped serving: listener closed") {
		t.Errorf("error %v", err)
	}
	if out.String() != "export X=1\n" || errOut.String() != "serving\ncareful\n" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}

	s = &fakeServer{done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Serve(ctx, output.NewPrinter(io)); err != nil || s.closed == 0 {
		t.Errorf("Ctrl-C: %v, closed %d times", err, s.closed)
	}
}
