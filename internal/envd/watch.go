package envd

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// RecursiveWatch is the first envd that watches a directory's
// subdirectories too (WatchDirRequest.recursive); an older one ignores the
// field and watches the one directory.
var RecursiveWatch = Version{0, 1, 4}

// watchMaxMessage caps one message of a watch: an event is a name and a
// type, a few KiB at most however long the path.
const watchMaxMessage = 1 << 20

// FileEvent is one change in a watched directory.
type FileEvent struct {
	// Op is what happened: create, write, remove, rename or chmod.
	Op string
	// Name is the changed entry's path relative to the watched directory
	// ("." is the directory itself), as envd 0.2.10 and later name it.
	Name string
}

// ops are envd's event types as abx names them.
var ops = map[pb.EventType]string{
	pb.EventType_EVENT_TYPE_CREATE: "create",
	pb.EventType_EVENT_TYPE_WRITE:  "write",
	pb.EventType_EVENT_TYPE_REMOVE: "remove",
	pb.EventType_EVENT_TYPE_RENAME: "rename",
	pb.EventType_EVENT_TYPE_CHMOD:  "chmod",
}

// ErrWatchEnded is a watch stream that closed without an error. envd ends
// a watch only when its client goes, so something between cut it.
var ErrWatchEnded = errors.New("the watch stream ended")

// errLate is a watch whose start did not come by the time given.
var errLate = errors.New("the watch did not start in time")

// CheckRecursiveWatch is nil when this sandbox's envd watches
// subdirectories, and otherwise the abxerr.Unsupported error that says so.
func (c *Client) CheckRecursiveWatch() error {
	if c.Version.AtLeast(RecursiveWatch) {
		return nil
	}
	return abxerr.New(abxerr.Unsupported, "this sandbox's envd %s cannot watch subdirectories (it needs %s or newer)", c.Version, RecursiveWatch).
		WithHint("watch without --recursive, or each directory on its own")
}

// Watch is an open watch of a directory: WatchDir returned it once envd
// said the watch was in place, so every change from then on is told.
type Watch struct {
	stream *connect.ServerStreamForClient[pb.WatchDirResponse]
	cancel context.CancelFunc
	route  *routeNote

	began time.Time // when envd said the watch was in place

	mu    sync.Mutex
	heard time.Time // the last message of any kind, keepalives included
}

// WatchDir watches dir (absolute, or relative to the user's home) and
// returns once envd has started watching. A missing dir is NotFound, a
// file Rejected ("not a directory"). recursive needs RecursiveWatch.
// Events come from Next; Close ends the watch.
func (c *Client) WatchDir(ctx context.Context, dir string, recursive bool) (*Watch, error) {
	return c.watchDir(ctx, dir, recursive, time.Time{})
}

// watchDir is WatchDir that gives up when the start has not come by
// startBy (zero: never). It sets no deadline on the request, which envd
// would take for the watch's own.
func (c *Client) watchDir(ctx context.Context, dir string, recursive bool, startBy time.Time) (*Watch, error) {
	if recursive {
		if err := c.CheckRecursiveWatch(); err != nil {
			return nil, err
		}
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	route := &routeNote{next: c.http.Transport}
	hc := *c.http
	hc.Transport = route
	fs := filesystemconnect.NewFilesystemClient(&hc, c.base, connect.WithReadMaxBytes(watchMaxMessage))
	r := connect.NewRequest(&pb.WatchDirRequest{Path: dir, Recursive: recursive})
	c.askKeepalive(r.Header())
	var late *time.Timer
	if !startBy.IsZero() {
		late = time.AfterFunc(time.Until(startBy), cancel)
	}
	w, err := func() (*Watch, error) {
		stream, err := fs.WatchDir(ctx, r)
		if err != nil {
			return nil, err
		}
		w := &Watch{stream: stream, cancel: cancel, route: route}
		for stream.Receive() {
			w.hear()
			if stream.Msg().GetStart() != nil {
				w.began = w.heard
				return w, nil
			}
			// envd sends start first; anything else before it is no
			// event of this watch.
		}
		_ = stream.Close()
		if err := stream.Err(); err != nil {
			return nil, err
		}
		return nil, ErrWatchEnded
	}()
	if late != nil && !late.Stop() && parent.Err() == nil {
		// The timer cancelled the call (the caller's context is fine).
		if w != nil {
			_ = w.Close()
		}
		cancel()
		return nil, &abxerr.Error{Code: abxerr.Network, Message: "envd did not start watching " + abxerr.Cut(dir) + " in time", Cause: errLate}
	}
	if err != nil {
		cancel()
		return nil, route.explain(err)
	}
	return w, nil
}

func (w *Watch) hear() {
	w.mu.Lock()
	w.heard = time.Now()
	w.mu.Unlock()
}

// Heard is when the stream last said anything (an event or a keepalive):
// after a cut, changes since then may not have been told.
func (w *Watch) Heard() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.heard
}

// Next waits for the next change. Keepalives and events of kinds this
// client does not know are skipped. A stream that closes cleanly is
// ErrWatchEnded.
func (w *Watch) Next() (FileEvent, error) {
	for w.stream.Receive() {
		w.hear()
		fs := w.stream.Msg().GetFilesystem()
		if fs == nil {
			continue
		}
		op, ok := ops[fs.GetType()]
		if !ok {
			continue
		}
		return FileEvent{Op: op, Name: fs.GetName()}, nil
	}
	if err := w.stream.Err(); err != nil {
		return FileEvent{}, w.route.explain(err)
	}
	return FileEvent{}, ErrWatchEnded
}

// Close ends the watch.
func (w *Watch) Close() error {
	w.cancel()
	return w.stream.Close()
}

// routeNote keeps what the gateway said when it answered a watch with a
// 502 (no route to a running sandbox): Connect keeps only the status.
type routeNote struct {
	next http.RoundTripper

	mu     sync.Mutex
	status string
	text   string
}

func (t *routeNote) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	resp, err := next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusBadGateway {
		return resp, err
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_ = resp.Body.Close()
	t.mu.Lock()
	t.status, t.text = resp.Status, strings.TrimSpace(string(b))
	t.mu.Unlock()
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp, nil
}

// explain turns err into abx's error; a 502 of the gateway (ErrNotRunning:
// watching again will not help until the sandbox runs) says what the
// gateway said, which tells a paused sandbox from one that is gone.
func (t *routeNote) explain(err error) error {
	out := AsError(err)
	t.mu.Lock()
	status, text := t.status, t.text
	t.mu.Unlock()
	var e *abxerr.Error
	if status == "" || !errors.As(out, &e) || !errors.Is(out, ErrNotRunning) {
		return out
	}
	msg := "the sandbox's gateway answered " + status
	if text != "" {
		msg += ": " + firstLine(text)
	}
	return &abxerr.Error{Code: abxerr.Network, Status: http.StatusBadGateway, Message: msg, Cause: e.Cause,
		Hint: "the sandbox is paused or gone: reading it tells which"}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
