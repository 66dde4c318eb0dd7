package alicloudcontainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/provider"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func hintOf(err error) string {
	var e *abxerr.Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}

func newClient(t *testing.T, h http.Handler) *Client {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := New(Config{BaseURL: ts.URL, APIKey: "k", Protocol: "native", EnvdPort: 49983, RequestTimeout: 5 * time.Second},
		provider.Deps{HTTP: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fakeClient(t *testing.T) (*Client, *manager.Server) {
	srv := manager.New(manager.Options{APIKey: "k", Domain: "abx.test", KeepRequests: true})
	return newClient(t, srv), srv
}

func TestServerErrorsMapToCodes(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		code      abxerr.Code
		exit      int
		msg       string
		requestID string
	}{
		{"401", 401, `{"code":401,"headers":null,"message":"Invalid API Key","request_id":"0123456789abcdef0123456789abcdef"}`,
			abxerr.Unauthorized, 4, "Invalid API Key (HTTP 401)", "0123456789abcdef0123456789abcdef"},
		{"403 quota", 403, `{"code":403,"message":"quota exceeded","request_id":"r403"}`, abxerr.Forbidden, 4, "quota exceeded (HTTP 403)", "r403"},
		{"404 json", 404, `{"code":404,"message":"Sandbox route not found, maybe it is crashed or killed: x","request_id":"r404"}`,
			abxerr.NotFound, 3, "Sandbox route not found, maybe it is crashed or killed: x (HTTP 404)", "r404"},
		{"404 text", 404, "404 page not found\n", abxerr.Rejected, 1, "404 page not found (HTTP 404)", ""},
		{"400", 400, `{"code":400,"message":"timeout should between 30 and 2592000","request_id":"r400"}`,
			abxerr.Rejected, 1, "timeout should between 30 and 2592000 (HTTP 400)", "r400"},
		{"500 code 0", 500, `{"code":0,"message":"EOF","request_id":"r500"}`, abxerr.Server, 1, "EOF (HTTP 500)", "r500"},
		{"405 text", 405, "Method Not Allowed\n", abxerr.Rejected, 1, "Method Not Allowed (HTTP 405)", ""},
		{"502 empty", 502, "", abxerr.Server, 1, "Bad Gateway (HTTP 502)", ""},
		{"code disagrees with status", 400, `{"code":500,"message":"bad","request_id":"x"}`, abxerr.Rejected, 1, "bad (HTTP 400)", "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = fmt.Fprint(w, tc.body)
			}))
			_, err := c.Get(context.Background(), "x")
			e := abxerr.From(err)
			if e.Code != tc.code || e.ExitCode() != tc.exit || e.Message != tc.msg || e.RequestID != tc.requestID {
				t.Errorf("got %s exit %d %q id %q; want %s exit %d %q id %q",
					e.Code, e.ExitCode(), e.Message, e.RequestID, tc.code, tc.exit, tc.msg, tc.requestID)
			}
		})
	}
}

func TestUndecodableSuccessIsBadResponse(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Request-ID", "rid")
		_, _ = fmt.Fprint(w, "<html>login</html>")
	}))
	_, err := c.Get(context.Background(), "x")
	if e := abxerr.From(err); e.Code != abxerr.BadResponse || e.RequestID != "rid" {
		t.Fatalf("got %v (%s)", err, e.Code)
	}
}

func TestListFollowsPagesUntilLimit(t *testing.T) {
	c, srv := fakeClient(t)
	ctx := context.Background()
	var ids []string
	for i := 0; i < 250; i++ {
		md := map[string]string{"batch": "a"}
		if i%2 == 1 {
			md["batch"] = "b"
		}
		s, err := c.Create(ctx, provider.CreateRequest{Template: "base", Metadata: md})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.SandboxID)
	}
	all, err := c.List(ctx, provider.ListOptions{})
	if err != nil || len(all) != 250 {
		t.Fatalf("list all: %d, %v", len(all), err)
	}
	for i := range all {
		if all[i].SandboxID != ids[i] {
			t.Fatalf("item %d is %s, want %s (oldest first)", i, all[i].SandboxID, ids[i])
		}
	}
	srv.ResetLog()
	some, err := c.List(ctx, provider.ListOptions{Limit: 130, Metadata: map[string]string{"batch": "b"}})
	if err != nil || len(some) != 125 {
		t.Fatalf("list batch b: %d, %v", len(some), err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 pages", len(reqs))
	}
	if !contains(reqs[0].Query, "limit=100") || !contains(reqs[1].Query, "limit=30") || !contains(reqs[1].Query, "nextToken=") {
		t.Errorf("page queries %q, %q", reqs[0].Query, reqs[1].Query)
	}
	if !contains(reqs[0].Query, "metadata=batch%3Db") {
		t.Errorf("metadata filter not encoded as the server reads it: %q", reqs[0].Query)
	}
	first, err := c.List(ctx, provider.ListOptions{Limit: 3})
	if err != nil || len(first) != 3 || first[2].SandboxID != ids[2] {
		t.Fatalf("limit 3: %v %v", first, err)
	}
}

func TestListStopsOnARepeatedToken(t *testing.T) {
	var n int
	var mu sync.Mutex
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		w.Header().Set("X-Next-Token", "same")
		_, _ = fmt.Fprint(w, `[{"sandboxID":"a","state":"running","startedAt":"<unknown>"}]`)
	}))
	list, err := c.List(context.Background(), provider.ListOptions{})
	// The page served again is the same sandbox, listed once.
	if err != nil || n != 2 || len(list) != 1 {
		t.Fatalf("n=%d list=%v err=%v", n, list, err)
	}
	if !list[0].StartedAt.IsZero() {
		t.Errorf("an unknown start time should be zero, got %v", list[0].StartedAt)
	}
}

func TestListFallsBackWithoutV2(t *testing.T) {
	var paths []string
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path+"?"+r.URL.RawQuery)
		if r.URL.Path == "/v2/sandboxes" {
			http.NotFound(w, r)
			return
		}
		_, _ = fmt.Fprint(w, `[{"sandboxID":"a","templateID":"base"}]`)
	}))
	list, err := c.List(context.Background(), provider.ListOptions{Metadata: map[string]string{"k": "v"}})
	if err != nil || len(list) != 1 || list[0].State != "running" {
		t.Fatalf("list %v err %v", list, err)
	}
	if len(paths) != 2 || paths[1] != "/sandboxes?metadata=k%3Dv" {
		t.Errorf("paths %v", paths)
	}
	paused, err := c.List(context.Background(), provider.ListOptions{States: []string{"paused"}})
	if err != nil || len(paused) != 0 {
		t.Errorf("the old route lists running sandboxes only: %v %v", paused, err)
	}
}

func TestLifecycleAgainstTheFake(t *testing.T) {
	c, srv := fakeClient(t)
	ctx := context.Background()
	s, err := c.Create(ctx, provider.CreateRequest{Template: "base", Timeout: time.Hour, NoInternet: true,
		Env: map[string]string{"A": "1"}, Metadata: map[string]string{"owner": "me"}, AutoPause: true})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(srv.Requests()[0].Body), &body)
	if body["allow_internet_access"] != false || body["timeout"] != 3600.0 || body["autoPause"] != true ||
		body["templateID"] != "base" {
		t.Errorf("create body %v", body)
	}
	if s.Metadata[manager.ResourceKey] == "" || s.Metadata["owner"] != "me" || s.State != "running" {
		t.Errorf("sandbox %+v", s)
	}
	r, err := c.Connect(ctx, s.SandboxID, 0)
	if err != nil || r.Resumed {
		t.Fatalf("connect running: %+v %v", r, err)
	}
	if err := c.Pause(ctx, s.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := c.Pause(ctx, s.SandboxID); err != nil {
		t.Fatalf("pause is idempotent: %v", err)
	}
	r, err = c.Connect(ctx, s.SandboxID, time.Minute)
	if err != nil || !r.Resumed || r.State != "running" {
		t.Fatalf("connect paused: %+v %v", r, err)
	}
	if err := c.Pause(ctx, s.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume(ctx, s.SandboxID, 0); err != nil {
		t.Fatal(err)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Body != `{"timeout":300}` {
		t.Errorf("resume sends the default timeout, got %q", last.Body)
	}
	if err := c.SetTimeout(ctx, s.SandboxID, 45*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Kill(ctx, s.SandboxID); err != nil {
		t.Fatal(err)
	}
	if e := abxerr.From(c.Kill(ctx, s.SandboxID)); e.Code != abxerr.NotFound {
		t.Fatalf("second kill: %v", e)
	}
}

func TestResumeAcceptsE2BCreatedWithBody(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		_, _ = fmt.Fprint(w, `{"sandboxID":"a","state":"running"}`)
	}))
	if err := c.Resume(context.Background(), "a", time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestConnectFallsBackToGetOnClientError(t *testing.T) {
	var seen []string
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.Path)
		if r.Method == http.MethodPost {
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		_, _ = fmt.Fprint(w, `{"sandboxID":"a","state":"running","templateID":"base"}`)
	}))
	r, err := c.Connect(context.Background(), "a", time.Minute)
	if err != nil || r.Resumed || r.TemplateID != "base" {
		t.Fatalf("%+v %v", r, err)
	}
	if strings.Join(seen, ",") != "POST /sandboxes/a/connect,GET /sandboxes/a" {
		t.Errorf("requests %v", seen)
	}
}

func TestRequestDeadline(t *testing.T) {
	block := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }))
	defer ts.Close()
	defer close(block)
	c, _ := New(Config{BaseURL: ts.URL, APIKey: "k", Protocol: "native", EnvdPort: 1, RequestTimeout: 50 * time.Millisecond},
		provider.Deps{HTTP: ts.Client()})
	_, err := c.Get(context.Background(), "a")
	if e := abxerr.From(err); e.Code != abxerr.Timeout || e.ExitCode() != 124 {
		t.Fatalf("got %v (%s)", err, e.Code)
	}
}

// A template the service does not have is "not found" (exit 3), with the
// service's words kept and a hint at where the templates come from: the
// sandbox-manager lists none.
func TestCreateOfAMissingTemplateIsNotFound(t *testing.T) {
	for _, tc := range []struct{ name, message string }{
		{"the cluster's words", "Template or Checkpoint not found"},
		{"the emulator's, with its templates", "Template or Checkpoint not found (this server's templates: base, code-interpreter)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = fmt.Fprintf(w, `{"code":400,"message":%q,"request_id":"r400"}`, tc.message)
			}))
			_, err := c.Create(context.Background(), provider.CreateRequest{Template: "nosuch"})
			e := abxerr.From(err)
			if e.Code != abxerr.NotFound || e.ExitCode() != 3 || e.Message != tc.message+" (HTTP 400)" || e.RequestID != "r400" {
				t.Errorf("got %s exit %d %q id %q", e.Code, e.ExitCode(), e.Message, e.RequestID)
			}
			if !contains(e.Hint, "SandboxSet") || !contains(e.Hint, "nosuch") {
				t.Errorf("hint %q", e.Hint)
			}
		})
	}
	// Other refusals of a create stay what they were.
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprint(w, `{"code":400,"message":"timeout should between 30 and 2592000"}`)
	}))
	_, err := c.Create(context.Background(), provider.CreateRequest{Template: "base"})
	if e := abxerr.From(err); e.Code != abxerr.Rejected {
		t.Errorf("a bad timeout: %s", e.Code)
	}
}
