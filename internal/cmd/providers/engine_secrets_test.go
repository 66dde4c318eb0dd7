package providers

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
)

const (
	echoedKey   = "sk-echoed-9f3a71"
	envdToken   = "envd-secret-5d2c"
	engineToken = "e2b_0123456789abcdef"
)

// echoingManager is a sandbox-manager that says back the secrets it got:
// its errors echo the X-API-Key, its list holds the key in metadata, and
// envd in its sandbox echoes the access token in an error, as real
// servers' error messages sometimes do.
func echoingManager(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "POST" && r.URL.Path == "/kruise/api/sandboxes":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = fmt.Fprintf(w, `{"code":400,"message":"refused key %s"}`, r.Header.Get("X-API-Key"))
		case r.Method == "GET" && r.URL.Path == "/kruise/api/v2/sandboxes":
			_, _ = fmt.Fprintf(w, `[{"sandboxID":"sb1","templateID":"base","clientID":"c","state":"running",`+
				`"metadata":{"leak":"key=%s","%s":"as a name"}}]`, r.Header.Get("X-API-Key"), r.Header.Get("X-API-Key"))
		case r.Method == "GET" && r.URL.Path == "/kruise/api/sandboxes/sb1":
			_, _ = fmt.Fprintf(w, `{"sandboxID":"sb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.2.10",`+
				`"envdAccessToken":%q}`, envdToken)
		case r.URL.Path == "/kruise/sb1/49983/metrics":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprintf(w, `{"code":401,"message":"token %s is not this sandbox's"}`, r.Header.Get("X-Access-Token"))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"code":404,"message":"no such route"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// What the engine answers from the provider's and envd's words goes
// through the printers' redaction: an error that echoes the cluster's
// key, a list whose metadata holds it, an envd error on the metrics route
// that echoes the sandbox's token. A real engine listener, as serve runs
// it, in front of a fake that echoes.
func TestTheEngineRedactsWhatTheUpstreamEchoes(t *testing.T) {
	t.Parallel()
	upstream := echoingManager(t)
	f, _ := factorytest.NewFactory(false, map[string]string{
		"ABX_PROVIDER":                        "alicloud-container",
		"ABX_ALICLOUD_CONTAINER_PROTOCOL":     "private",
		"ABX_ALICLOUD_CONTAINER_BASE_URL":     upstream.URL + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_API_KEY":      echoedKey,
		"ABX_ALICLOUD_CONTAINER_RETRIES":      "0",
		"ABX_ALICLOUD_CONTAINER_IDLE_TIMEOUT": "10s",
	}, "")
	o := newServeOptions(f)
	o.Addr, o.Token = "127.0.0.1:0", engineToken
	s, err := o.start(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	url := s.(*engineServer).url
	for _, r := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/sandboxes", 400},
		{"GET", "/v2/sandboxes", 200},
		{"GET", "/sandboxes/sb1/metrics", 502},
		{"GET", "/sandboxes/metrics?sandbox_ids=sb1", 502},
	} {
		req, _ := http.NewRequest(r.method, url+r.path, strings.NewReader(`{"templateID":"base"}`))
		req.Header.Set("X-API-Key", engineToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		body := string(b)
		if resp.StatusCode != r.status || strings.Contains(body, echoedKey) || strings.Contains(body, envdToken) ||
			!strings.Contains(body, "REDACTED") {
			t.Errorf("%s %s: %d %s, want %d with the secrets redacted", r.method, r.path, resp.StatusCode, body, r.status)
		}
	}
}
