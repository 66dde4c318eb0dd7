package envd

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

func dataResponse(t *testing.T, kind string, b []byte) []byte {
	t.Helper()
	d := &pb.ProcessEvent_DataEvent{}
	switch kind {
	case "stdout":
		d.Output = &pb.ProcessEvent_DataEvent_Stdout{Stdout: b}
	case "stderr":
		d.Output = &pb.ProcessEvent_DataEvent_Stderr{Stderr: b}
	default:
		d.Output = &pb.ProcessEvent_DataEvent_Pty{Pty: b}
	}
	raw, err := proto.Marshal(&pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: d}}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Output events decoded into one message share one buffer, and each reads
// exactly as sent, whichever stream it belongs to; other events decode as
// the standard codec does.
func TestOutputCodecReusesOneBuffer(t *testing.T) {
	var msg pb.StartResponse
	c := outputCodec{}
	first := bytes.Repeat([]byte("a"), 32<<10)
	if err := c.Unmarshal(dataResponse(t, "stdout", first), &msg); err != nil {
		t.Fatal(err)
	}
	buf := msg.GetEvent().GetData().GetStdout()
	if !bytes.Equal(buf, first) {
		t.Fatal("first chunk differs")
	}
	for i, kind := range []string{"stdout", "stderr", "pty", "stdout"} {
		chunk := bytes.Repeat([]byte{byte('b' + i)}, 1000+i)
		if err := c.Unmarshal(dataResponse(t, kind, chunk), &msg); err != nil {
			t.Fatal(err)
		}
		d := msg.GetEvent().GetData()
		got := map[string][]byte{"stdout": d.GetStdout(), "stderr": d.GetStderr(), "pty": d.GetPty()}[kind]
		if !bytes.Equal(got, chunk) {
			t.Errorf("%s chunk %d: %q", kind, i, got)
		}
		if &got[0] != &buf[0] {
			t.Errorf("%s chunk %d got a buffer of its own", kind, i)
		}
	}
	raw := dataResponse(t, "stdout", first)
	if n := testing.AllocsPerRun(100, func() { _ = c.Unmarshal(raw, &msg) }); n > 2 {
		t.Errorf("%.0f allocations per output event, want at most the oneof wrapper's", n)
	}

	// An end event, and output after it, decode as usual.
	end, _ := proto.Marshal(&pb.StartResponse{Event: &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{ExitCode: 3, Exited: true}}}})
	if err := c.Unmarshal(end, &msg); err != nil || msg.GetEvent().GetEnd().GetExitCode() != 3 {
		t.Errorf("end: %v %v", msg.GetEvent(), err)
	}
	if err := c.Unmarshal(dataResponse(t, "stderr", []byte("x")), &msg); err != nil || string(msg.GetEvent().GetData().GetStderr()) != "x" {
		t.Errorf("after the end: %v %v", msg.GetEvent(), err)
	}
	// Bytes that are not one output event are left to the standard codec.
	if err := c.Unmarshal(append(dataResponse(t, "stdout", []byte("y")), 0x08, 0x01), &msg); err != nil {
		t.Errorf("an extra field: %v", err)
	}
}

// An empty message is a response with no event: connect decodes nothing
// for it, and the output before it must not be handed on a second time.
func TestAnEmptyMessageRepeatsNoOutput(t *testing.T) {
	t.Parallel()
	out := envelope(0, dataResponse(t, "stdout", []byte("once\n")))
	end := eventEnvelope(t, &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{Exited: true}}})
	body := bytes.Join([][]byte{out, envelope(0, nil), out, envelope(0, nil), envelope(0, nil), end, envelope(2, []byte("{}"))}, nil)
	c := New(&http.Client{Transport: fuzzTransport{body: body}}, Endpoint{URL: "http://envd.test", Version: "0.5.2"}, "")
	var stdout bytes.Buffer
	if _, err := c.Start(context.Background(), Command{Cmd: "true"}, func(e Event) error {
		stdout.Write(e.Stdout)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "once\nonce\n" {
		t.Errorf("stdout %q, want each output event once", stdout.String())
	}
}
