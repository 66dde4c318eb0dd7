//go:build !race

// Allocation counts under the race detector are its own, not abx's: these
// tests run without it (CI's allocation step).

package remoteproc

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// ptyStream is envd's answer to a Start with a terminal, enveloped in the
// Connect streaming protocol: a start event, n chunks of terminal output
// of size bytes each, an end event and the end of the stream.
func ptyStream(t testing.TB, n, size int) []byte {
	t.Helper()
	var b bytes.Buffer
	envelope := func(flags byte, msg []byte) {
		var head [5]byte
		head[0] = flags
		binary.BigEndian.PutUint32(head[1:], uint32(len(msg)))
		b.Write(head[:])
		b.Write(msg)
	}
	event := func(ev *pb.ProcessEvent) {
		msg, err := proto.Marshal(&pb.StartResponse{Event: ev})
		if err != nil {
			t.Fatal(err)
		}
		envelope(0, msg)
	}
	event(&pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 7}}})
	chunk := bytes.Repeat([]byte("x"), size)
	for range n {
		event(&pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: &pb.ProcessEvent_DataEvent{
			Output: &pb.ProcessEvent_DataEvent_Pty{Pty: chunk}}}})
	}
	event(&pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{Exited: true, Status: "exit status 0"}}})
	envelope(2, []byte("{}"))
	return b.Bytes()
}

// allocsOfTerminal counts the allocations of one terminal session whose
// program prints n chunks: envd's client, the follower, the screen.
func allocsOfTerminal(t *testing.T, n int) uint64 {
	t.Helper()
	body := ptyStream(t, n, 16<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/connect+proto")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	c := envd.New(&http.Client{}, envd.Endpoint{URL: srv.URL, Version: "0.2.10"}, "user")
	run := func() {
		term := &Terminal{Spec: Spec{Argv: []string{"/bin/bash", "-l"}}, Size: envd.Size{Cols: 80, Rows: 24},
			Keys: bytes.NewReader(nil), Screen: io.Discard}
		x, err := term.Run(t.Context(), c)
		if err != nil || x.Code != 0 {
			t.Fatalf("%v, %+v", err, x)
		}
	}
	run()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// A terminal's output costs at most what a command's does (2.0 an event,
// connect-go's own envelope read; at most 2.5): each chunk goes to the
// screen as it came, copied nowhere.
func TestTerminalOutputAllocatesNothingPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of two sessions")
	}
	small, large := allocsOfTerminal(t, 100), allocsOfTerminal(t, 1100)
	per := float64(int64(large)-int64(small)) / 1000
	t.Logf("%d allocations for 100 events, %d for 1100: %.2f an event", small, large, per)
	if per > 2.5 {
		t.Fatalf("%.2f allocations a terminal output event (at most 2.5)", per)
	}
}
