package envd

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	pb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// fakeWatch serves WatchDir from a script: each call takes the next
// answer, a function given the stream (the last one answers every call
// after it).
type fakeWatch struct {
	filesystemconnect.UnimplementedFilesystemHandler
	mu      sync.Mutex
	answers []func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error
	calls   atomic.Int32
	reqs    []*pb.WatchDirRequest
	headers []http.Header
}

func (f *fakeWatch) WatchDir(ctx context.Context, req *connect.Request[pb.WatchDirRequest], stream *connect.ServerStream[pb.WatchDirResponse]) error {
	n := int(f.calls.Add(1)) - 1
	f.mu.Lock()
	f.reqs = append(f.reqs, req.Msg)
	f.headers = append(f.headers, req.Header())
	answer := f.answers[min(n, len(f.answers)-1)]
	f.mu.Unlock()
	return answer(ctx, stream)
}

// serveWatch serves f, with a 502 in the gateway's words for every call
// while gone is set.
func serveWatch(t *testing.T, f *fakeWatch, gone *atomic.Bool) *httptest.Server {
	t.Helper()
	_, h := filesystemconnect.NewFilesystemHandler(f)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gone != nil && gone.Load() {
			f.calls.Add(1)
			http.Error(w, "sandbox not found: sb", http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func start(s *connect.ServerStream[pb.WatchDirResponse]) error {
	return s.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Start{Start: &pb.WatchDirResponse_StartEvent{}}})
}

func change(s *connect.ServerStream[pb.WatchDirResponse], name string, typ pb.EventType) error {
	return s.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Filesystem{Filesystem: &pb.FilesystemEvent{Name: name, Type: typ}}})
}

func keepalive(s *connect.ServerStream[pb.WatchDirResponse]) error {
	return s.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Keepalive{Keepalive: &pb.WatchDirResponse_KeepAlive{}}})
}

// events answers with start, the changes, and then waits for the client
// to go (as envd does), or ends with end when it is not nil.
func events(end error, changes ...*pb.FilesystemEvent) func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error {
	return func(ctx context.Context, s *connect.ServerStream[pb.WatchDirResponse]) error {
		if err := start(s); err != nil {
			return err
		}
		if err := keepalive(s); err != nil {
			return err
		}
		for _, c := range changes {
			if err := change(s, c.GetName(), c.GetType()); err != nil {
				return err
			}
		}
		if end != nil {
			return end
		}
		<-ctx.Done()
		return ctx.Err()
	}
}

func ev(name string, typ pb.EventType) *pb.FilesystemEvent {
	return &pb.FilesystemEvent{Name: name, Type: typ}
}

func watchClient(ts *httptest.Server, version string) *Client {
	return New(ts.Client(), Endpoint{URL: ts.URL, Version: version, Keepalive: 5 * time.Second}, "")
}

func TestWatchDirTellsEachChange(t *testing.T) {
	f := &fakeWatch{answers: []func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error{events(nil,
		ev("a.txt", pb.EventType_EVENT_TYPE_CREATE), ev("a.txt", pb.EventType_EVENT_TYPE_WRITE),
		ev("a.txt", pb.EventType_EVENT_TYPE_CHMOD), ev("sub/b", pb.EventType_EVENT_TYPE_RENAME),
		ev("odd", pb.EventType(99)), ev("a.txt", pb.EventType_EVENT_TYPE_REMOVE))}}
	c := watchClient(serveWatch(t, f, nil), "0.2.10")
	w, err := c.WatchDir(t.Context(), "out", true)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Close() }()
	var got []string
	for range 5 {
		e, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Op+" "+e.Name)
	}
	if want := "create a.txt,write a.txt,chmod a.txt,rename sub/b,remove a.txt"; strings.Join(got, ",") != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if r := f.reqs[0]; r.GetPath() != "out" || !r.GetRecursive() {
		t.Errorf("request %v", r)
	}
	if h := f.headers[0]; h.Get("Keepalive-Ping-Interval") != "5" || h.Get("Authorization") == "" {
		t.Errorf("headers %v", h)
	}
	if w.Heard().IsZero() {
		t.Error("nothing heard")
	}
}

func TestWatchDirRefusals(t *testing.T) {
	refuse := func(code connect.Code, msg string) func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error {
		return func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error {
			return connect.NewError(code, errors.New(msg))
		}
	}
	cases := []struct {
		name    string
		answer  func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error
		version string
		code    abxerr.Code
		calls   int32
	}{
		{"missing", refuse(connect.CodeNotFound, "path /home/user/x not found"), "0.2.10", abxerr.NotFound, 1},
		{"a file", refuse(connect.CodeInvalidArgument, "path /home/user/f not a directory"), "0.2.10", abxerr.Rejected, 1},
		{"recursive on an envd without it", nil, "0.1.2", abxerr.Unsupported, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeWatch{answers: []func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error{tc.answer}}
			c := watchClient(serveWatch(t, f, nil), tc.version)
			err := c.Follow(t.Context(), WatchSpec{Dir: "x", Recursive: true}, func(FileEvent) error { return nil },
				func(Resume) error { t.Error("resumed"); return nil })
			if e := abxerr.From(err); e.Code != tc.code {
				t.Errorf("err %v (%s), want %s", err, e.Code, tc.code)
			}
			if n := f.calls.Load(); n != tc.calls {
				t.Errorf("%d calls, want %d: a refusal is not tried again", n, tc.calls)
			}
		})
	}
}

var errEnough = errors.New("enough")

// collect follows until n changes came, and returns them and the resumes.
func collect(t *testing.T, c *Client, spec WatchSpec, n int) ([]string, []Resume, error) {
	t.Helper()
	var got []string
	var resumes []Resume
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := c.Follow(ctx, spec, func(e FileEvent) error {
		got = append(got, e.Op+" "+e.Name)
		if len(got) == n {
			return errEnough
		}
		return nil
	}, func(r Resume) error {
		resumes = append(resumes, r)
		return nil
	})
	return got, resumes, err
}

func TestFollowWatchesAgainAfterACut(t *testing.T) {
	cuts := []error{
		connect.NewError(connect.CodeUnavailable, errors.New("upstream reset")),
		nil, // a stream that ends cleanly: a proxy closed it
	}
	for _, end := range cuts {
		f := &fakeWatch{}
		if end == nil {
			f.answers = append(f.answers, func(_ context.Context, s *connect.ServerStream[pb.WatchDirResponse]) error {
				_ = start(s)
				return change(s, "first", pb.EventType_EVENT_TYPE_CREATE)
			})
		} else {
			f.answers = append(f.answers, events(end, ev("first", pb.EventType_EVENT_TYPE_CREATE)))
		}
		f.answers = append(f.answers, events(nil, ev("second", pb.EventType_EVENT_TYPE_WRITE)))
		c := watchClient(serveWatch(t, f, nil), "0.2.10")
		got, resumes, err := collect(t, c, WatchSpec{Dir: "out"}, 2)
		if !errors.Is(err, errEnough) {
			t.Fatalf("err %v", err)
		}
		if strings.Join(got, ",") != "create first,write second" || len(resumes) != 1 {
			t.Fatalf("events %q, resumes %v", got, resumes)
		}
		r := resumes[0]
		if r.Cause == nil || r.Attempts != 1 || r.Gap() <= 0 || r.Since.IsZero() || r.Lasted <= 0 || r.Reason() == "" {
			t.Errorf("resume %+v", r)
		}
	}
}

func TestFollowEndsWhenTheSandboxIsGone(t *testing.T) {
	var gone atomic.Bool
	f := &fakeWatch{answers: []func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error{
		func(_ context.Context, s *connect.ServerStream[pb.WatchDirResponse]) error {
			_ = start(s)
			_ = change(s, "first", pb.EventType_EVENT_TYPE_CREATE)
			gone.Store(true)
			return connect.NewError(connect.CodeUnavailable, errors.New("the sandbox is gone"))
		},
	}}
	c := watchClient(serveWatch(t, f, &gone), "0.2.10")
	start := time.Now()
	got, resumes, err := collect(t, c, WatchSpec{Dir: "out", Bound: time.Minute}, 2)
	if len(got) != 1 || len(resumes) != 0 {
		t.Fatalf("events %q, resumes %v", got, resumes)
	}
	if !errors.Is(err, ErrWatchCut) || !errors.Is(err, ErrNotRunning) {
		t.Fatalf("err %v", err)
	}
	e := abxerr.From(err)
	if !strings.HasPrefix(e.Message, "the watch of out was cut after ") || !strings.Contains(e.Message, "(the sandbox is gone), and abx could not watch again: the sandbox's gateway answered 502") ||
		!strings.Contains(e.Message, "sandbox not found: sb") || e.Hint == "" {
		t.Errorf("error %q (hint %q)", e.Message, e.Hint)
	}
	if f.calls.Load() != 2 {
		t.Errorf("a 502 is not tried again: %d calls in %s", f.calls.Load(), time.Since(start))
	}
}

func TestFollowGivesUpAfterItsBound(t *testing.T) {
	f := &fakeWatch{answers: []func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error{
		events(connect.NewError(connect.CodeUnavailable, errors.New("reset")), ev("first", pb.EventType_EVENT_TYPE_CREATE)),
		func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error {
			return connect.NewError(connect.CodeUnavailable, errors.New("no healthy upstream"))
		},
	}}
	c := watchClient(serveWatch(t, f, nil), "0.2.10")
	_, _, err := collect(t, c, WatchSpec{Dir: "out", Bound: time.Second}, 2)
	if !errors.Is(err, ErrWatchCut) {
		t.Fatalf("err %v", err)
	}
	if e := abxerr.From(err); e.Code != abxerr.Network || !strings.Contains(e.Message, "(reset), and abx could not watch again: no watch within 1.0s: no healthy upstream") {
		t.Errorf("error %s %q", e.Code, e.Message)
	}
	if f.calls.Load() < 3 {
		t.Errorf("%d calls: tried again only %d times", f.calls.Load(), f.calls.Load()-1)
	}
}

func TestFollowStopsOnCtrlC(t *testing.T) {
	f := &fakeWatch{answers: []func(context.Context, *connect.ServerStream[pb.WatchDirResponse]) error{events(nil)}}
	c := watchClient(serveWatch(t, f, nil), "0.2.10")
	ctx, cancel := context.WithCancel(t.Context())
	err := c.Follow(ctx, WatchSpec{Dir: "out", Started: cancel}, func(FileEvent) error { return nil },
		func(Resume) error { t.Error("resumed"); return nil })
	if e := abxerr.From(err); e.Code != abxerr.Interrupted || f.calls.Load() != 1 {
		t.Errorf("err %v (%s), %d calls", err, e.Code, f.calls.Load())
	}
}
