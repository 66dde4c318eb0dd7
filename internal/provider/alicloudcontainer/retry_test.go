package alicloudcontainer

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/provider"
)

// retryClient is a client with retries whose --debug lines go to log.
func retryClient(t *testing.T, h http.Handler, retries int, timeout time.Duration, log *strings.Builder) *Client {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	deps := provider.Deps{HTTP: ts.Client()}
	if log != nil {
		deps.Log = log
	}
	c, err := New(Config{BaseURL: ts.URL, APIKey: "k", Protocol: "native", EnvdPort: 49983, RequestTimeout: timeout,
		Retries: retries}, deps)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// failing answers status to the first n requests and 200 with a sandbox
// after; it counts them all.
func failing(n int32, status int, header http.Header, count *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if count.Add(1) <= n {
			for k, v := range header {
				w.Header()[k] = v
			}
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"sandboxID":"sbx-1","templateID":"base","state":"running"}`))
	})
}

// Idempotent calls ride out transient answers; --debug says each try.
func TestIdempotentCallsRetryTransientAnswers(t *testing.T) {
	t.Parallel()
	// Each waits out its backoff: side by side.
	for _, status := range []int{429, 502, 503, 504} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			t.Parallel()
			var count atomic.Int32
			var log strings.Builder
			c := retryClient(t, failing(2, status, nil, &count), 3, 30*time.Second, &log)
			if err := c.Kill(context.Background(), "sbx-1"); err != nil {
				t.Fatalf("%d: %v", status, err)
			}
			if count.Load() != 3 {
				t.Errorf("%d: %d requests, want 3", status, count.Load())
			}
			if n := strings.Count(log.String(), "DELETE /sandboxes/sbx-1: try "); n != 2 {
				t.Errorf("%d: the log tells %d retries:\n%s", status, n, log.String())
			}
		})
	}
}

// When the tries run out the last answer is the error, and says how many.
func TestRetriesRunOut(t *testing.T) {
	t.Parallel()
	var count atomic.Int32
	c := retryClient(t, failing(100, 503, nil, &count), 2, 30*time.Second, nil)
	_, err := c.Get(context.Background(), "sbx-1")
	e := abxerr.From(err)
	if e.Code != abxerr.Server || e.Message != "Service Unavailable (HTTP 503) (after 3 tries)" || count.Load() != 3 {
		t.Fatalf("got %d requests and %s %q", count.Load(), e.Code, e.Message)
	}
}

// Retry-After is what the server asked: the wait is its, not the
// backoff's.
func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	var count atomic.Int32
	var log strings.Builder
	c := retryClient(t, failing(1, 429, http.Header{"Retry-After": {"1"}}, &count), 3, 30*time.Second, &log)
	if err := c.Pause(context.Background(), "sbx-1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "next in 1s") {
		t.Errorf("log:\n%s", log.String())
	}
}

// A Retry-After past the call's deadline ends the call at once with the
// server's answer, rather than a wait that cannot finish.
func TestRetryAfterPastTheDeadlineGivesUp(t *testing.T) {
	t.Parallel()
	var count atomic.Int32
	c := retryClient(t, failing(100, 503, http.Header{"Retry-After": {"3600"}}, &count), 3, 2*time.Second, nil)
	_, err := c.Get(context.Background(), "sbx-1")
	if e := abxerr.From(err); e.Code != abxerr.Server || count.Load() != 1 {
		t.Fatalf("got %d requests and %v", count.Load(), err)
	}
}

// What is not transient is not tried again; nor is anything with
// --retries 0.
func TestNoRetryWhereItCannotHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status, retries int
	}{{400, 3}, {401, 3}, {404, 3}, {500, 3}, {503, 0}} {
		var count atomic.Int32
		c := retryClient(t, failing(100, tc.status, nil, &count), tc.retries, 30*time.Second, nil)
		if _, err := c.Get(context.Background(), "sbx-1"); err == nil || count.Load() != 1 {
			t.Errorf("%d with %d retries: %d requests, %v", tc.status, tc.retries, count.Load(), err)
		}
	}
}

// A redirect abx refuses comes back the same every time: it is not tried
// again, nor sent to where it pointed.
func TestRefusedRedirectIsNotRetried(t *testing.T) {
	t.Parallel()
	var elsewhere, here atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(other.Close)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		here.Add(1)
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(ts.Close)
	c, err := New(Config{BaseURL: ts.URL, APIKey: "k", Protocol: "native", EnvdPort: 49983, RequestTimeout: 30 * time.Second,
		Retries: 3}, provider.Deps{HTTP: httpclient.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "sbx-1")
	if e := abxerr.From(err); e.Code != abxerr.BadResponse || strings.Contains(e.Message, "tries") {
		t.Errorf("got %s %q, want E5004 after one try", e.Code, e.Message)
	}
	if here.Load() != 1 || elsewhere.Load() != 0 {
		t.Errorf("%d requests here and %d elsewhere, want 1 and 0", here.Load(), elsewhere.Load())
	}
}

// cutAfterRead reads a request whole, then drops the connection without
// an answer: the server got it and may have acted.
func cutAfterRead(count *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		count.Add(1)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
}

// Creating is tried once once its request is out: a second try could
// make a second sandbox. The error says it may exist.
func TestCreateIsNotRetriedOnceSent(t *testing.T) {
	t.Parallel()
	for _, status := range []int{0, 503} {
		var count atomic.Int32
		h := cutAfterRead(&count)
		if status != 0 {
			h = failing(100, status, nil, &count)
		}
		c := retryClient(t, h, 3, 30*time.Second, nil)
		_, err := c.Create(context.Background(), provider.CreateRequest{Template: "base"})
		if count.Load() != 1 {
			t.Errorf("%d: %d requests", status, count.Load())
		}
		e := abxerr.From(err)
		if status == 0 && (!strings.Contains(e.Message, "the sandbox may have been created") || e.Next != abxerr.StepFindCreated || e.Hint != "") {
			t.Errorf("got %q (%s, next %q): each door says how to look for it", e.Message, e.Hint, e.Next)
		}
	}
	// Idempotent calls cut the same way are tried again.
	var count atomic.Int32
	c := retryClient(t, cutAfterRead(&count), 2, 30*time.Second, nil)
	if _, err := c.Get(context.Background(), "sbx-1"); err == nil || count.Load() != 3 {
		t.Errorf("get: %d requests, %v", count.Load(), err)
	}
}

// refuseFirst fails the first dial, as a server that is restarting does;
// nothing was sent, so even a create may go again.
type refuseFirst struct {
	next  http.RoundTripper
	tries atomic.Int32
}

func (r *refuseFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.tries.Add(1) == 1 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	}
	return r.next.RoundTrip(req)
}

func TestCreateIsRetriedWhenNothingWasSent(t *testing.T) {
	t.Parallel()
	var count atomic.Int32
	ts := httptest.NewServer(failing(0, 0, nil, &count))
	t.Cleanup(ts.Close)
	rt := &refuseFirst{next: ts.Client().Transport}
	c, err := New(Config{BaseURL: ts.URL, APIKey: "k", Protocol: "native", EnvdPort: 49983, RequestTimeout: 30 * time.Second,
		Retries: 3}, provider.Deps{HTTP: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Create(context.Background(), provider.CreateRequest{Template: "base"})
	if err != nil || s.SandboxID != "sbx-1" || rt.tries.Load() != 2 || count.Load() != 1 {
		t.Fatalf("got %v, %v after %d tries and %d requests", s, err, rt.tries.Load(), count.Load())
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "7": 7 * time.Second, "-1": 0, "soon": 0,
		"Tue, 01 Dec 2026 12:00:30 GMT": 30 * time.Second, "Tue, 01 Dec 2026 11:00:00 GMT": 0,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("%q: %s, want %s", v, got, want)
		}
	}
}
