//go:build unix

package envd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// recorder is a response writer that counts what reaches it.
type recorder struct {
	*httptest.ResponseRecorder
	writes, flushes int
	fail            error
}

func newRecorder() *recorder { return &recorder{ResponseRecorder: httptest.NewRecorder()} }

func (r *recorder) Write(p []byte) (int, error) {
	if r.fail != nil {
		return 0, r.fail
	}
	r.writes++
	return r.ResponseRecorder.Write(p)
}

func (r *recorder) Flush() { r.flushes++ }

func TestBatchWriterWritesAMessageWhole(t *testing.T) {
	rec := newRecorder()
	b := &batchWriter{ResponseWriter: rec}
	// As Connect writes a message: its 5-byte prefix, then its payload.
	_, _ = b.Write([]byte{0, 0, 0, 16, 0})
	_, _ = b.Write(bytes.Repeat([]byte("x"), 16<<10))
	if rec.writes != 0 {
		t.Fatalf("%d writes before the flush, want none", rec.writes)
	}
	b.Flush()
	if rec.writes != 1 || rec.flushes != 1 || rec.Body.Len() != 5+16<<10 {
		t.Fatalf("after the flush: %d writes, %d flushes, %d bytes; want 1, 1, %d", rec.writes, rec.flushes, rec.Body.Len(), 5+16<<10)
	}
}

func TestBatchWriterHeldWaitsUpToItsBound(t *testing.T) {
	rec := newRecorder()
	b := &batchWriter{ResponseWriter: rec}
	b.held = true
	for range 3 {
		_, _ = b.Write([]byte("event"))
		b.Flush()
	}
	if rec.writes != 0 || rec.flushes != 0 {
		t.Fatalf("held: %d writes, %d flushes, want none", rec.writes, rec.flushes)
	}
	// A burst longer than the bound goes out without waiting for its end.
	_, _ = b.Write(make([]byte, batchMax))
	b.Flush()
	if rec.writes != 1 || rec.Body.Len() != 15+batchMax {
		t.Fatalf("past the bound: %d writes of %d bytes, want 1 of %d", rec.writes, rec.Body.Len(), 15+batchMax)
	}
	_, _ = b.Write([]byte("last"))
	b.held = false
	b.Flush()
	if rec.writes != 2 || rec.flushes != 2 || !bytes.HasSuffix(rec.Body.Bytes(), []byte("last")) {
		t.Fatalf("released: %d writes, %d flushes, want 2 and 2", rec.writes, rec.flushes)
	}
}

func TestBatchWriterReportsAGoneClient(t *testing.T) {
	rec := newRecorder()
	rec.fail = errors.New("broken pipe")
	b := &batchWriter{ResponseWriter: rec}
	if _, err := b.Write([]byte("one")); err != nil {
		t.Fatalf("first write: %v (kept, not yet sent)", err)
	}
	if err := b.FlushError(); err == nil {
		t.Fatal("the flush did not report the failed write")
	}
	if _, err := b.Write([]byte("two")); err == nil {
		t.Fatal("a write after the failure succeeded: the stream's sender would not learn its client is gone")
	}
}

func TestBatchedSendsWhatWasKeptWhenTheHandlerEnds(t *testing.T) {
	for _, abort := range []bool{false, true} {
		rec := newRecorder()
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			holder(r.Context())(true)
			_, _ = w.Write([]byte("kept"))
			w.(http.Flusher).Flush()
			if abort {
				panic(http.ErrAbortHandler)
			}
		})
		r := httptest.NewRequest(http.MethodPost, "/process.Process/Start", nil)
		r.Header.Set("Content-Type", "application/connect+proto")
		func() {
			defer func() { _ = recover() }()
			batched(h, rec, r)
		}()
		if got := rec.Body.String(); got != "kept" {
			t.Errorf("abort=%v: the client got %q, want what was written before the end", abort, got)
		}
	}
}

func TestBatchedLeavesOtherRequestsAlone(t *testing.T) {
	rec := newRecorder()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(*batchWriter); ok {
			t.Error("a unary request went through a batchWriter")
		}
		holder(r.Context())(true) // nothing to tell: no panic
	})
	r := httptest.NewRequest(http.MethodPost, "/process.Process/List", nil)
	r.Header.Set("Content-Type", "application/proto")
	batched(h, rec, r)
}

// forward holds its stream's flushes while events are queued behind the
// one it sends: a burst goes out in one write, and the last event of it
// without waiting.
func TestForwardSendsAQueuedBurstInOneWrite(t *testing.T) {
	rec := newRecorder()
	b := &batchWriter{ResponseWriter: rec}
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), batchKey{}, b), 10*time.Second)
	defer cancel()
	events := make(chan *pb.ProcessEvent, 16)
	for range 10 {
		events <- &pb.ProcessEvent{Event: &pb.ProcessEvent_Data{Data: &pb.ProcessEvent_DataEvent{
			Output: &pb.ProcessEvent_DataEvent_Pty{Pty: []byte("0123456789")}}}}
	}
	events <- &pb.ProcessEvent{Event: &pb.ProcessEvent_End{End: &pb.ProcessEvent_EndEvent{Exited: true}}}
	sent := 0
	send := func(*pb.ProcessEvent) error {
		// As Connect sends: the message, then a flush.
		sent++
		if _, err := b.Write([]byte("message")); err != nil {
			return err
		}
		b.Flush()
		if sent == 3 && rec.writes != 0 {
			t.Errorf("the third of eleven queued events was written at once")
		}
		return nil
	}
	if err := forward(ctx, events, time.Hour, func() bool { return false }, send); err != nil {
		t.Fatal(err)
	}
	if sent != 11 || rec.writes != 1 || rec.Body.Len() != 11*len("message") {
		t.Fatalf("%d events sent in %d writes of %d bytes; want 11 in 1 of %d", sent, rec.writes, rec.Body.Len(), 11*len("message"))
	}
}
