package interrupt

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

func TestReaderReadsThrough(t *testing.T) {
	t.Parallel()
	want := bytes.Repeat([]byte("0123456789"), 10000)
	if err := iotest.TestReader(Reader(t.Context(), bytes.NewReader(want)), want); err != nil {
		t.Error(err)
	}
	got, err := io.ReadAll(Reader(t.Context(), iotest.OneByteReader(strings.NewReader("abc"))))
	if err != nil || string(got) != "abc" {
		t.Errorf("got %q, %v", got, err)
	}
	boom := iotest.ErrReader(abxerr.New(abxerr.InvalidInput, "boom"))
	if _, err := io.ReadAll(Reader(t.Context(), boom)); abxerr.From(err).Code != abxerr.InvalidInput {
		t.Errorf("error %v, want the reader's", err)
	}
}

// A read nobody will answer (a terminal, an idle pipe) gives way to Ctrl-C.
func TestReaderStopsABlockedRead(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe() // never written to
	defer func() { _ = w.Close() }()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(Reader(ctx, r)); done <- err }()
	cancel()
	select {
	case err := <-done:
		if e := abxerr.From(err); e.Code != abxerr.Interrupted || abxerr.Exit(err, false) != abxerr.ExitInterrupted {
			t.Errorf("error %v, want E7001", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatal("the read did not stop")
	}
}

// No byte is taken from the reader that nobody asked for: what follows an
// interrupted read is still there for whoever reads next.
func TestReaderReadsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	src := strings.NewReader("abcdef")
	r := Reader(t.Context(), src)
	buf := make([]byte, 2)
	if n, err := r.Read(buf); n != 2 || err != nil || string(buf) != "ab" {
		t.Fatalf("read %d %q, %v", n, buf[:n], err)
	}
	if src.Len() != 4 {
		t.Errorf("%d bytes left in the source, want 4", src.Len())
	}
}
