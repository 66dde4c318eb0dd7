//go:build !race

// Allocation counts under the race detector are its own, not abx's: these
// tests run without it (CI's allocation step).

package files

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/abx-dev/abx/internal/envd/envdtest"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/secrets"
)

// maxAllocsPerChange bounds what one change of a watch costs abx, from
// envd's stream to a row on stdout: the envelope read and the message
// decoded (its name is a string of its own), the event, the row's cells
// (the path joined, the time formatted) and the row's writing: 12 today.
// Counted, not timed: any allocation a change adds shows here.
const maxAllocsPerChange = 12.5

// watchStream is envd's answer to WatchDir: a start event, then n
// changes (the count ends the watch before the stream's end would cut it).
func watchStream(t testing.TB, n int) []byte {
	t.Helper()
	msgs := []proto.Message{&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Start{Start: &pb.WatchDirResponse_StartEvent{}}}}
	for i := range n {
		msgs = append(msgs, &pb.WatchDirResponse{Event: &pb.WatchDirResponse_Filesystem{Filesystem: &pb.FilesystemEvent{
			Name: "out/file-" + strconv.Itoa(i%100) + ".txt", Type: pb.EventType_EVENT_TYPE_WRITE}}})
	}
	return envdtest.Stream(t, msgs...)
}

// endpointOnly is a provider whose one sandbox's envd is at url.
type endpointOnly struct {
	provider.Provider
	url string
}

func (p endpointOnly) Endpoint(_ context.Context, id string, port int) (*provider.Endpoint, error) {
	return &provider.Endpoint{SandboxID: id, Port: port, URL: p.url, Header: http.Header{}, EnvdVersion: "0.2.10",
		State: "running", Privileged: true}, nil
}

// allocsOfWatch counts the allocations of one `abx files watch ID out
// --count n` whose envd reports n changes, printed as rows for people.
func allocsOfWatch(t *testing.T, n int) uint64 {
	t.Helper()
	url := envdtest.Serve(t, watchStream(t, n))
	d := &provider.Descriptor{Name: "fake", Capabilities: []provider.Capability{provider.FilesRW, provider.FilesWatch}}
	svc := &sandboxes.Service{
		Descriptor: func() (*provider.Descriptor, error) { return d, nil },
		Provider:   func() (provider.Provider, error) { return endpointOnly{url: url}, nil },
		HTTPClient: func() *http.Client { return &http.Client{} },
	}
	io2 := &output.Streams{In: bytes.NewReader(nil), Out: io.Discard, ErrOut: io.Discard, Now: time.Now, Secrets: &secrets.Set{}}
	return envdtest.Allocs(func() {
		opts := &WatchOptions{IO: io2, Printer: output.NewPrinter(io2), target: target{Sandboxes: svc, ID: "sb", Path: "out"}, Count: n}
		if err := runWatch(t.Context(), opts); err != nil {
			t.Fatal(err)
		}
	})
}

func TestWatchChangesAllocateABoundedAmount(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of two watches")
	}
	small, large := allocsOfWatch(t, 100), allocsOfWatch(t, 1100)
	per := envdtest.PerEvent(small, large, 1000)
	t.Logf("%d allocations for 100 changes, %d for 1100: %.2f a change", small, large, per)
	if per > maxAllocsPerChange {
		t.Fatalf("%.2f allocations a change (at most %g): something allocates for each change again", per, maxAllocsPerChange)
	}
}
