//go:build !race

// Allocation counts under the race detector are its own, not abx's: these
// tests run without it (CI's allocation step).

package process

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/envd/envdtest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/secrets"
)

// maxAllocsPerEvent bounds what one output event costs abx on the way from
// envd's stream to abx's stdout: the envelope read, the decode into the
// reused message, the follower, the sink. Two are connect-go's own (its
// envelope reader copies each message through an io.LimitReader), which
// abx does not patch; any one more of abx's fails. Allocation counts do
// not depend on the machine's speed: a change that copies each chunk again
// (as string(b) for people's form once did, a quarter of exec's speed)
// fails here before any benchmark would notice.
const maxAllocsPerEvent = 2.5

// allocsOfExec counts the allocations of one exec of a command that prints
// n chunks, through the path a real exec takes: envd's client, the
// follower of remoteproc.Run and exec's sink, to stdout in people's form
// (format "") or JSON Lines.
func allocsOfExec(t *testing.T, n int, format output.Format) uint64 {
	t.Helper()
	return allocsOfStream(t, n, format, func(c *envd.Client, p *output.Printer) (*remoteproc.Exit, error) {
		spec := remoteproc.Spec{Argv: []string{"true"}, Signals: make(chan os.Signal)}
		return remoteproc.Run(t.Context(), c, spec, newSink(p, true))
	})
}

// allocsOfStream counts the allocations of one run of a command's stream,
// n chunks of output long, through follow (exec's Run, or ps attach's
// Attach), against envd answering every call with the stream.
func allocsOfStream(t *testing.T, n int, format output.Format, follow func(*envd.Client, *output.Printer) (*remoteproc.Exit, error)) uint64 {
	t.Helper()
	url := envdtest.Serve(t, envdtest.Started(t, n, 4096, false))
	c := envd.New(&http.Client{}, envd.Endpoint{URL: url, Version: "0.2.10"}, "user")
	io2 := &output.Streams{In: bytes.NewReader(nil), Out: io.Discard, ErrOut: io.Discard, Now: time.Now, Secrets: &secrets.Set{}}
	p := output.NewPrinter(io2)
	p.SetFormat(format)
	return envdtest.Allocs(func() {
		x, err := follow(c, p)
		if err != nil || x.Code != 0 {
			t.Fatalf("%v, %+v", err, x)
		}
	})
}

// An output event costs exec at most maxAllocsPerEvent allocations, for
// people; counted as the difference of two streams, 1000 events apart,
// so that what a run costs once (the request, the start, the end) cancels.
func TestExecOutputAllocatesNothingPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of two streams")
	}
	small, large := allocsOfExec(t, 100, ""), allocsOfExec(t, 1100, "")
	per := envdtest.PerEvent(small, large, 1000)
	t.Logf("%d allocations for 100 events, %d for 1100: %.2f an event", small, large, per)
	if per > maxAllocsPerEvent {
		t.Fatalf("%.2f allocations an output event (at most %g): something copies or boxes each chunk again", per, maxAllocsPerEvent)
	}
}

// JSON Lines print each chunk as an event: its encoding allocates, a few
// times a chunk; bounded all the same.
func TestExecJSONOutputAllocationsAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of two streams")
	}
	small, large := allocsOfExec(t, 100, output.JSON), allocsOfExec(t, 1100, output.JSON)
	per := envdtest.PerEvent(small, large, 1000)
	t.Logf("%d allocations for 100 events, %d for 1100: %.2f an event", small, large, per)
	if limit := 12.0; per > limit {
		t.Fatalf("%.2f allocations a JSON output event (at most %g)", per, limit)
	}
}

// ps attach reads a running process's stream (Connect) through the same
// follower and sink: the same bound.
func TestAttachOutputAllocatesNothingPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of two streams")
	}
	attach := func(c *envd.Client, p *output.Printer) (*remoteproc.Exit, error) {
		return remoteproc.Attach(t.Context(), c, 7, newSink(p, false))
	}
	small, large := allocsOfStream(t, 100, "", attach), allocsOfStream(t, 1100, "", attach)
	per := envdtest.PerEvent(small, large, 1000)
	t.Logf("%d allocations for 100 events, %d for 1100: %.2f an event", small, large, per)
	if per > maxAllocsPerEvent {
		t.Fatalf("%.2f allocations an output event of ps attach (at most %g)", per, maxAllocsPerEvent)
	}
}
