package loopback

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// Each read of a body pushes the connection's deadline to the idle bound
// from the time it starts: a body that keeps coming is never cut, however
// long it takes. Its end lifts the deadline; a failed read leaves it
// passed and marks the body cut; once the request is done, reads no longer
// touch the connection.
func TestEachReadPushesTheDeadlineOn(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var set []time.Time
	b := &idleBody{ReadCloser: io.NopCloser(strings.NewReader("abc")), idle: time.Minute,
		setDeadline: func(d time.Time) error { set = append(set, d); return nil },
		now:         func() time.Time { return clock }}
	p := make([]byte, 1)
	for i := range 3 {
		clock = clock.Add(50 * time.Second) // slower than the bound as a whole, never between two reads
		if n, err := b.Read(p); n != 1 || err != nil {
			t.Fatalf("read %d: %d %v", i, n, err)
		}
		if want := clock.Add(time.Minute); !set[len(set)-1].Equal(want) {
			t.Errorf("read %d set the deadline to %s, want %s", i, set[len(set)-1], want)
		}
	}
	if _, err := b.Read(p); !errors.Is(err, io.EOF) {
		t.Fatalf("the end: %v", err)
	}
	if last := set[len(set)-1]; !last.IsZero() || b.cut.Load() {
		t.Errorf("at the end the deadline is %s (cut %v), want it lifted", last, b.cut.Load())
	}

	set = nil
	cut := &idleBody{ReadCloser: io.NopCloser(failing{}), idle: time.Minute,
		setDeadline: func(d time.Time) error { set = append(set, d); return nil }, now: time.Now}
	if _, err := cut.Read(p); err == nil || !cut.cut.Load() || len(set) != 1 || set[0].IsZero() {
		t.Errorf("a failed read: %v, cut %v, deadlines %v: want it cut with the deadline left passed", err, cut.cut.Load(), set)
	}
	cut.done.Store(true)
	set = nil
	_, _ = cut.Read(p)
	if len(set) != 0 {
		t.Errorf("a read after the request was done set deadlines %v", set)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("i/o timeout") }
