package manager

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type fixture struct {
	t   *testing.T
	url string
	srv *Server
	mu  sync.Mutex
	now time.Time
}

func newFixture(t *testing.T) *fixture { return newFixtureHearing(t, nil) }

// newFixtureHearing is newFixture with an OnEvent hook.
func newFixtureHearing(t *testing.T, onEvent func(string, Sandbox)) *fixture {
	f := &fixture{t: t, now: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	f.srv = New(Options{APIKey: "k", Now: func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }})
	f.srv.OnEvent = onEvent
	ts := httptest.NewServer(f.srv)
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

func (f *fixture) advance(d time.Duration) { f.mu.Lock(); f.now = f.now.Add(d); f.mu.Unlock() }

// do sends a request and returns the status, the body and the headers.
func (f *fixture) do(method, path, body string) (int, string, http.Header) {
	f.t.Helper()
	req, _ := http.NewRequest(method, f.url+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func (f *fixture) create(body string) string {
	f.t.Helper()
	status, b, _ := f.do("POST", "/sandboxes", body)
	if status != 201 {
		f.t.Fatalf("create: %d %s", status, b)
	}
	var s struct{ SandboxID string }
	_ = json.Unmarshal([]byte(b), &s)
	return s.SandboxID
}

func TestQuirks(t *testing.T) {
	f := newFixture(t)
	id := f.create(`{"templateID":"base"}`)
	if !strings.HasPrefix(id, "default--base-") {
		t.Errorf("id %q", id)
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		contains                 string
	}{
		{"GET /sandboxes is a plain 405", "GET", "/sandboxes", "", 405, "Method Not Allowed"},
		{"unknown route is a plain 404", "GET", "/templates/x/builds", "", 404, "404 page not found"},
		{"v2 create is a 405", "POST", "/v2/sandboxes", "{}", 405, "Method Not Allowed"},
		{"v2 connect is a 405", "POST", "/v2/sandboxes/anything/connect", "{}", 405, "Method Not Allowed"},
		{"v2 connect under /kruise/api too", "POST", "/kruise/api/v2/sandboxes/anything/connect", "{}", 405, "Method Not Allowed"},
		{"timeout floor", "POST", "/sandboxes", `{"templateID":"base","timeout":29}`, 400, "timeout should between 30 and 2592000"},
		{"timeout ceiling", "POST", "/sandboxes", `{"templateID":"base","timeout":2592001}`, 400, "timeout should between 30 and 2592000"},
		{"unknown template", "POST", "/sandboxes", `{"templateID":"nope"}`, 400, "Template or Checkpoint not found (this server's templates: base, code-interpreter, code-interpreter-v1)"},
		{"reserved metadata", "POST", "/sandboxes", `{"templateID":"base","metadata":{"agents.kruise.io/x":"1"}}`, 400, "Forbidden metadata key"},
		{"undecodable body is 500 code 0", "POST", "/sandboxes", `{`, 500, `"code":0`},
		{"limit 0", "GET", "/v2/sandboxes?limit=0", "", 400, "Invalid limit: 0, must be between 1 and 100"},
		{"limit 101", "GET", "/v2/sandboxes?limit=101", "", 400, "Invalid limit: 101"},
		{"bad state", "GET", "/v2/sandboxes?state=dead", "", 400, "Only 'running' and 'paused' state are supported"},
		{"unknown keys are metadata filters", "GET", "/v2/sandboxes?order=asc", "", 200, "[]"},
		{"private prefix", "GET", "/kruise/api/sandboxes/" + id, "", 200, `"envdAccessToken"`},
		{"resume of a running sandbox", "POST", "/sandboxes/" + id + "/resume", `{"timeout":60}`, 409, "is not paused"},
		{"resume without a body", "POST", "/sandboxes/" + id + "/resume", ``, 500, `"code":0`},
		{"connect without timeout", "POST", "/sandboxes/" + id + "/connect", `{}`, 400, "timeout should between 0 and"},
		{"timeout errors are 500", "POST", "/sandboxes/" + id + "/timeout", `{"timeout":0}`, 500, "timeout should between"},
		{"connect running is 200", "POST", "/sandboxes/" + id + "/connect", `{"timeout":60}`, 200, `"state":"running"`},
		{"pause", "POST", "/sandboxes/" + id + "/pause", "", 204, ""},
		{"pause again is fine", "POST", "/sandboxes/" + id + "/pause", "", 204, ""},
		{"connect paused is 201", "POST", "/sandboxes/" + id + "/connect", `{"timeout":60}`, 201, `"state":"running"`},
		{"delete", "DELETE", "/sandboxes/" + id, "", 204, ""},
		{"delete twice", "DELETE", "/sandboxes/" + id, "", 404, "Sandbox route not found, maybe it is crashed or killed: " + id},
	}
	for _, tc := range cases {
		status, body, h := f.do(tc.method, tc.path, tc.body)
		if status != tc.status || !strings.Contains(body, tc.contains) {
			t.Errorf("%s: %d %q, want %d containing %q", tc.name, status, body, tc.status, tc.contains)
		}
		if status >= 400 && strings.HasPrefix(body, "{") {
			var env map[string]any
			_ = json.Unmarshal([]byte(body), &env)
			if rid, _ := env["request_id"].(string); len(rid) != 32 {
				t.Errorf("%s: request_id %v", tc.name, env["request_id"])
			}
			if _, ok := env["headers"]; !ok || h.Get("X-Request-ID") != "" {
				t.Errorf("%s: envelope %v / header %q", tc.name, env, h.Get("X-Request-ID"))
			}
		}
		if status == 200 && h.Get("X-Request-ID") == "" {
			t.Errorf("%s: success without X-Request-ID", tc.name)
		}
	}
}

func TestAuth(t *testing.T) {
	f := newFixture(t)
	for _, key := range []string{"", "wrong"} {
		req, _ := http.NewRequest("GET", f.url+"/v2/sandboxes", nil)
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		req.Header.Set("Authorization", "Bearer k") // ignored
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 401 || !strings.Contains(string(b), `"message":"Invalid API Key"`) {
			t.Errorf("key %q: %d %s", key, resp.StatusCode, b)
		}
	}
}

func TestTimeoutsExpire(t *testing.T) {
	f := newFixture(t)
	gone := f.create(`{"templateID":"base","timeout":30}`)
	kept := f.create(`{"templateID":"base","timeout":30,"autoPause":true}`)
	long := f.create(`{"templateID":"base"}`)
	f.advance(31 * time.Second)
	if status, _, _ := f.do("GET", "/sandboxes/"+gone, ""); status != 404 {
		t.Errorf("expired sandbox answers %d", status)
	}
	if _, body, _ := f.do("GET", "/sandboxes/"+kept, ""); !strings.Contains(body, `"state":"paused"`) {
		t.Errorf("auto-paused sandbox: %s", body)
	}
	if _, body, _ := f.do("GET", "/sandboxes/"+long, ""); !strings.Contains(body, `"state":"running"`) {
		t.Errorf("default timeout is 300 s: %s", body)
	}
	// timeout overwrites (and may shorten) the deadline
	f.do("POST", "/sandboxes/"+long+"/timeout", `{"timeout":5}`)
	f.advance(6 * time.Second)
	if status, _, _ := f.do("GET", "/sandboxes/"+long, ""); status != 404 {
		t.Errorf("shortened sandbox answers %d", status)
	}
}

func TestPagesAndFilters(t *testing.T) {
	f := newFixture(t)
	for i := 0; i < 5; i++ {
		f.create(`{"templateID":"base","metadata":{"team":"a","n":"` + string(rune('0'+i)) + `"}}`)
	}
	f.create(`{"templateID":"base","metadata":{"team":"b"}}`)
	var seen []string
	path := "/v2/sandboxes?limit=2&metadata=team%3Da"
	for pages := 0; ; pages++ {
		status, body, h := f.do("GET", path, "")
		if status != 200 || pages > 5 {
			t.Fatalf("page %d: %d %s", pages, status, body)
		}
		var items []struct {
			SandboxID       string
			EnvdAccessToken string
		}
		_ = json.Unmarshal([]byte(body), &items)
		for _, it := range items {
			if it.EnvdAccessToken != "" {
				t.Error("list items carry no token")
			}
			seen = append(seen, it.SandboxID)
		}
		next := h.Get("X-Next-Token")
		if next == "" {
			break
		}
		path = "/v2/sandboxes?limit=2&metadata=team%3Da&nextToken=" + next
	}
	if len(seen) != 5 {
		t.Errorf("saw %d sandboxes of team a, want 5: %v", len(seen), seen)
	}
	_, body, _ := f.do("GET", "/v2/sandboxes?team=b", "")
	if strings.Count(body, "sandboxID") != 1 {
		t.Errorf("a bare key filters metadata too: %s", body)
	}
}
