package envd

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// outputCodec is the binary codec of the process service with one fast
// path: an output event decoded into a message that already holds output
// reuses its bytes. A command's output arrives as a stream of such events,
// and follow decodes each into the same message once the last one was
// written out, so a stream of any length runs on one buffer instead of a
// fresh one per chunk for the collector to reclaim.
type outputCodec struct{}

func (outputCodec) Name() string { return "proto" }

func (outputCodec) Marshal(m any) ([]byte, error) { return proto.Marshal(m.(proto.Message)) }

// received is what follow hands to Receive: the response to decode into,
// and a mark the codec sets. connect takes an empty message as the zero
// value and calls no codec for it, which would leave the last event in a
// reused response to be handed on twice; the mark tells follow that
// nothing was decoded.
type received struct {
	msg     proto.Message
	decoded bool
}

func (outputCodec) Unmarshal(b []byte, m any) error {
	if r, ok := m.(*received); ok {
		r.decoded = true
		m = r.msg
	}
	var ev **pb.ProcessEvent
	switch r := m.(type) {
	case *pb.StartResponse:
		ev = &r.Event
	case *pb.ConnectResponse:
		ev = &r.Event
	}
	if ev != nil && reuseOutput(b, *ev) {
		return nil
	}
	return proto.Unmarshal(b, m.(proto.Message))
}

// reuseOutput decodes b, a response holding one output event and nothing
// else, into ev when ev holds output already, copying the bytes into ev's
// own. It reports false, having changed nothing, for anything else.
func reuseOutput(b []byte, ev *pb.ProcessEvent) bool {
	data, ok := ev.GetEvent().(*pb.ProcessEvent_Data)
	if !ok || data.Data == nil {
		return false
	}
	event, ok := only(b, 1) // StartResponse.event, ConnectResponse.event
	if !ok {
		return false
	}
	out, ok := only(event, 2) // ProcessEvent.data
	if !ok {
		return false
	}
	num, typ, n := protowire.ConsumeTag(out)
	if n < 0 || typ != protowire.BytesType || num < 1 || num > 3 {
		return false
	}
	chunk, m := protowire.ConsumeBytes(out[n:])
	if m < 0 || n+m != len(out) {
		return false
	}
	// held is the last event's bytes, and was the field they came in.
	var held *[]byte
	var was protowire.Number
	switch o := data.Data.GetOutput().(type) {
	case *pb.ProcessEvent_DataEvent_Stdout:
		held, was = &o.Stdout, 1
	case *pb.ProcessEvent_DataEvent_Stderr:
		held, was = &o.Stderr, 2
	case *pb.ProcessEvent_DataEvent_Pty:
		held, was = &o.Pty, 3
	}
	if held != nil && was == num {
		// The same stream as the last event: its bytes, in its own
		// wrapper, which stays (a new wrapper an event was one allocation
		// each).
		*held = append((*held)[:0], chunk...)
		return true
	}
	var buf []byte
	if held != nil {
		buf = (*held)[:0]
	}
	buf = append(buf, chunk...)
	switch num {
	case 1:
		data.Data.Output = &pb.ProcessEvent_DataEvent_Stdout{Stdout: buf}
	case 2:
		data.Data.Output = &pb.ProcessEvent_DataEvent_Stderr{Stderr: buf}
	default:
		data.Data.Output = &pb.ProcessEvent_DataEvent_Pty{Pty: buf}
	}
	return true
}

// only is the value of b's one field, when b holds exactly one field, of
// number num and of the bytes type.
func only(b []byte, num protowire.Number) ([]byte, bool) {
	n, typ, l := protowire.ConsumeTag(b)
	if l < 0 || n != num || typ != protowire.BytesType {
		return nil, false
	}
	v, m := protowire.ConsumeBytes(b[l:])
	if m < 0 || l+m != len(b) {
		return nil, false
	}
	return v, true
}
