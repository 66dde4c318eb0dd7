package envd

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// fuzzTransport answers every request with status 200 and the same body.
// A stream is told it got application/connect+proto, which it asked for;
// a unary call gets the content type it asked for, so that the body itself
// is decoded, unless connectType says to answer it as a stream too.
type fuzzTransport struct {
	body        []byte
	connectType bool
}

func (t fuzzTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	ct := req.Header.Get("Content-Type")
	if t.connectType {
		ct = "application/connect+proto"
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {ct}},
		Body:          io.NopCloser(bytes.NewReader(t.body)),
		ContentLength: int64(len(t.body)),
		Request:       req,
	}, nil
}

func envelope(flags byte, payload []byte) []byte {
	out := make([]byte, 5, 5+len(payload))
	out[0] = flags
	binary.BigEndian.PutUint32(out[1:], uint32(len(payload)))
	return append(out, payload...)
}

func eventEnvelope(t testing.TB, ev *pb.ProcessEvent) []byte {
	raw, err := proto.Marshal(&pb.StartResponse{Event: ev})
	if err != nil {
		t.Fatal(err)
	}
	return envelope(0, raw)
}

// wantStart reads a body as a Connect stream the way Start should: it
// reports whether a run of well-formed messages reaches an end event, and
// how many events Start hands on before that.
func wantStart(body []byte) (ok bool, events int) {
	for {
		if len(body) < 5 {
			return false, events
		}
		flags, size := body[0], binary.BigEndian.Uint32(body[1:5])
		body = body[5:]
		if uint64(size) > uint64(len(body)) || flags != 0 {
			return false, events
		}
		var msg pb.StartResponse
		if err := proto.Unmarshal(body[:size], &msg); err != nil {
			return false, events
		}
		body = body[size:]
		switch msg.GetEvent().GetEvent().(type) {
		case *pb.ProcessEvent_Start, *pb.ProcessEvent_Data:
			events++
		case *pb.ProcessEvent_End:
			return true, events + 1
		}
	}
}

// FuzzConnectStream feeds arbitrary bytes to the client as envd's reply:
// to a process start, which reads a Connect stream, and to Stat and
// ListDir, unary calls. Whatever the bytes, the calls return, and they
// succeed only on what envd could have meant.
func FuzzConnectStream(f *testing.F) {
	started := eventEnvelope(f, &pb.ProcessEvent{Event: &pb.ProcessEvent_Start{Start: &pb.ProcessEvent_StartEvent{Pid: 42}}})
	out := eventEnvelope(f, &pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: &pb.ProcessEvent_DataEvent{
		Output: &pb.ProcessEvent_DataEvent_Stdout{Stdout: []byte("hello\n")}}}})
	keepalive := eventEnvelope(f, &pb.ProcessEvent{Event: &pb.ProcessEvent_Keepalive{Keepalive: &pb.ProcessEvent_KeepAlive{}}})
	end := eventEnvelope(f, &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{
		ExitCode: 3, Exited: true, Status: "exit status 3"}}})
	trailer := envelope(2, []byte("{}"))
	valid := bytes.Join([][]byte{started, out, keepalive, end, trailer}, nil)
	if ok, n := wantStart(valid); !ok || n != 3 {
		f.Fatalf("the reference reader takes the valid seed for %v with %d events", ok, n)
	}

	f.Add(valid)
	f.Add(valid[:len(started)+len(out)/2])
	f.Add(append(append([]byte{}, started...), 0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3))
	f.Add(bytes.Join([][]byte{started, out, trailer}, nil))
	f.Add(bytes.Join([][]byte{started, envelope(2, []byte(`{"error":{"code":"not_found","message":"no such process"}}`))}, nil))
	f.Add(bytes.Join([][]byte{started, envelope(1, []byte{0x1f, 0x8b}), end}, nil))
	f.Add(bytes.Join([][]byte{envelope(0, nil), end, []byte("trailing")}, nil))
	f.Add([]byte{})
	stat, _ := proto.Marshal(&fspb.StatResponse{Entry: &fspb.EntryInfo{Name: "a", Path: "/home/user/a", Type: fspb.FileType_FILE_TYPE_FILE}})
	f.Add(stat)

	f.Fuzz(func(t *testing.T, body []byte) {
		c := New(&http.Client{Transport: fuzzTransport{body: body}}, Endpoint{URL: "http://envd.test", Version: "0.5.2"}, "")
		asStream := New(&http.Client{Transport: fuzzTransport{body: body, connectType: true}}, Endpoint{URL: "http://envd.test", Version: "0.5.2"}, "")
		done := make(chan struct{})
		go func() {
			defer close(done)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()

			wantOK, wantEvents := wantStart(body)
			var events int
			end, err := c.Start(ctx, Command{Cmd: "true"}, func(Event) error { events++; return nil })
			switch {
			case err == nil && !wantOK:
				t.Errorf("Start succeeded (%+v) on a reply with no well-formed end event", end)
			case err == nil && end == nil:
				t.Errorf("Start returned neither an end nor an error")
			case err != nil && wantOK:
				t.Errorf("Start failed on a well-formed reply: %v", err)
			case err == nil && events != wantEvents:
				t.Errorf("Start handed on %d events, want %d", events, wantEvents)
			}

			_, err = c.Stat(ctx, "/home/user/a")
			if werr := proto.Unmarshal(body, &fspb.StatResponse{}); err == nil && werr != nil {
				t.Errorf("Stat succeeded on a reply that is no StatResponse: %v", werr)
			}
			if _, err := asStream.ListDir(ctx, "/home/user", 1); err == nil {
				t.Errorf("ListDir took a reply labelled as a stream")
			}
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute): // a hang guard
			t.Fatal("the client did not return within 2 minutes of a 2s deadline")
		}
	})
}
