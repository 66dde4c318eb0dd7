package envd

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"connectrpc.com/connect"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

// endingProcess answers Start with a start, some output and an end.
type endingProcess struct {
	processconnect.UnimplementedProcessHandler
}

func (endingProcess) Start(_ context.Context, _ *connect.Request[pb.StartRequest], s *connect.ServerStream[pb.StartResponse]) error {
	for _, ev := range []*pb.ProcessEvent{
		{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 7}}},
		{Event: &pb.ProcessEvent_Data{Data: &pb.ProcessEvent_DataEvent{Output: &pb.ProcessEvent_DataEvent_Stdout{Stdout: []byte("hi\n")}}}},
		{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{Exited: true, Status: "exit status 0"}}},
	} {
		if err := s.Send(&pb.StartResponse{Event: ev}); err != nil {
			return err
		}
	}
	return nil
}

// Commands one after another share one connection: the stream is read to
// its close after the End event, which gives the connection back.
func TestCommandsReuseTheConnection(t *testing.T) {
	_, h := processconnect.NewProcessHandler(endingProcess{})
	ts := httptest.NewUnstartedServer(h)
	var conns atomic.Int32
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	c := New(ts.Client(), Endpoint{URL: ts.URL, Version: "0.2.10"}, "")
	for range 5 {
		end, err := c.Start(t.Context(), Command{Cmd: "echo", Args: []string{"hi"}}, func(Event) error { return nil })
		if err != nil || !end.Exited {
			t.Fatalf("start: %v %+v", err, end)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("5 commands opened %d connections, want 1", n)
	}
}
