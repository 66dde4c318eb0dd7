package engine_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/engine"
)

// refusingManager is a sandbox-manager that refuses every call but the
// read of sandbox sb1 (running) with status, in its own envelope
// ({"code", "message"}), and Retry-After when retryAfter is set.
func refusingManager(t *testing.T, status int, retryAfter string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == "GET" && r.URL.Path == "/kruise/api/sandboxes/sb1" {
			_, _ = io.WriteString(w, `{"sandboxID":"sb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.2.10"}`)
			return
		}
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"code":%d,"message":"refused %s %s"}`, status, r.Method, r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// engineBefore serves an engine whose provider is the sandbox-manager at
// upstream, tried once a call.
func engineBefore(t *testing.T, upstream string) string {
	t.Helper()
	f, _ := factorytest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                    "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_PROTOCOL": "private",
		"ABX_ALICLOUD_CONTAINER_BASE_URL": upstream + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":  "sk-cluster-key",
		"ABX_ALICLOUD_CONTAINER_RETRIES":  "0",
	}, "")
	if err := f.Sandboxes.Ready(); err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Options{Sandboxes: f.Sandboxes, Transport: f.HTTPClient().Transport,
		Token: token, Domain: "localhost:1", Secrets: f.IO.Secrets})
	ts := httptest.NewServer(e.Server().Handler)
	t.Cleanup(ts.Close)
	return ts.URL
}

// The engine answers a sandbox-manager's refusal with the status it
// gave, in E2B's envelope: a conflict stays 409 and a rate limit 429,
// with the wait the manager asked for, so that the SDKs read them as
// E2B's own API's. The provider's own key refused, or the manager
// failing, is the engine's failure (502), not the client's.
func TestTheEngineKeepsTheUpstreamStatus(t *testing.T) {
	t.Parallel()
	calls := []struct{ method, path, body string }{
		{"POST", "/sandboxes", `{"templateID":"base"}`},
		{"DELETE", "/sandboxes/sb1", ""},
		{"POST", "/sandboxes/sb1/timeout", `{"timeout":60}`},
		{"POST", "/sandboxes/sb1/pause", ""},
	}
	for _, c := range []struct {
		upstream   int
		retryAfter string
		want       int
	}{
		{409, "", 409},
		{429, "7", 429},
		{403, "", 403},
		{404, "", 404},
		{400, "", 400},
		{401, "", 502},
		{500, "", 502},
	} {
		url := engineBefore(t, refusingManager(t, c.upstream, c.retryAfter).URL)
		for _, call := range calls {
			req, _ := http.NewRequest(call.method, url+call.path, strings.NewReader(call.body))
			req.Header.Set("X-API-Key", token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			err = json.NewDecoder(resp.Body).Decode(&env)
			_ = resp.Body.Close()
			what := fmt.Sprintf("upstream %d, %s %s", c.upstream, call.method, call.path)
			if err != nil || resp.StatusCode != c.want || env.Code != c.want || !strings.Contains(env.Message, "refused") {
				t.Errorf("%s: %d %+v (%v), want %d in E2B's envelope", what, resp.StatusCode, env, err, c.want)
			}
			if got := resp.Header.Get("Retry-After"); got != c.retryAfter {
				t.Errorf("%s: Retry-After %q, want %q", what, got, c.retryAfter)
			}
		}
	}
}
