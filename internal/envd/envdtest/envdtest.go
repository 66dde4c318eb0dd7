// Package envdtest answers as envd does for tests that need its streams
// without a sandbox: a Connect server stream made of given messages, and
// a server that answers every call with it. The allocation tests of the
// streams' readers (exec, ps attach, the terminal, files watch) count
// with it what abx alone allocates.
package envdtest

import (
	"bytes"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// Stream is msgs as a Connect server stream in the proto codec: each
// message in its envelope, then the end of the stream.
func Stream(t testing.TB, msgs ...proto.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	envelope := func(flags byte, msg []byte) {
		var head [5]byte
		head[0] = flags
		binary.BigEndian.PutUint32(head[1:], uint32(len(msg)))
		b.Write(head[:])
		b.Write(msg)
	}
	for _, m := range msgs {
		raw, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		envelope(0, raw)
	}
	envelope(2, []byte("{}"))
	return b.Bytes()
}

// Serve starts a server that answers every call with body, a Connect
// stream, and returns its URL; it stops with the test.
func Serve(t testing.TB, body []byte) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/connect+proto")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Allocs counts the allocations of one call of run, after a first one
// uncounted (the connection, and whatever is made once on first use).
func Allocs(run func()) uint64 {
	run()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// PerEvent is what one event costs: the difference of two counts, of
// streams apart events apart, so that what a run costs once cancels.
func PerEvent(small, large uint64, apart int) float64 {
	return float64(int64(large)-int64(small)) / float64(apart)
}

// Started is envd's answer to a Start: a start event, n output events of
// size bytes each (on the terminal with tty, else on stdout), an end
// event with status 0.
func Started(t testing.TB, n, size int, tty bool) []byte {
	t.Helper()
	chunk := bytes.Repeat([]byte("x"), size)
	data := &pb.ProcessEvent_DataEvent{Output: &pb.ProcessEvent_DataEvent_Stdout{Stdout: chunk}}
	if tty {
		data = &pb.ProcessEvent_DataEvent{Output: &pb.ProcessEvent_DataEvent_Pty{Pty: chunk}}
	}
	msgs := []proto.Message{&pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 7}}}}}
	for range n {
		msgs = append(msgs, &pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: data}}})
	}
	msgs = append(msgs, &pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{Exited: true, Status: "exit status 0"}}}})
	return Stream(t, msgs...)
}
