package portforward

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/provider"
)

const secret = "e2b_fee1dead5ec12e7"

func redact(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED]") }

// A server that echoes a credential gets it to no client: every port's
// header values are redacted, and so are the error bodies of the ports
// that get the sandbox's token. An application's bodies are its own.
func TestAnswersPassNoSecret(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", "token "+secret)
		switch r.URL.Path {
		case "/error":
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"message":"invalid token `+secret+`"}`)
		case "/gzip":
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, "\x1f\x8b"+secret)
		default:
			_, _ = io.WriteString(w, "data "+secret)
		}
	}))
	t.Cleanup(up.Close)
	get := func(privileged bool, path string) (int, http.Header, string) {
		t.Helper()
		fw, err := New(&provider.Endpoint{URL: up.URL, Privileged: privileged}, http.DefaultTransport)
		if err != nil {
			t.Fatal(err)
		}
		fw.Redact = redact
		req, _ := http.NewRequest("GET", serve(t, fw)+path, nil)
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode, resp.Header, string(b)
	}
	for _, c := range []struct {
		privileged bool
		path, body string
		status     int
	}{
		{true, "/error", `{"message":"invalid token [REDACTED]"}`, 401},
		{true, "/gzip", "abx: the port's error answer was compressed and is not shown\n", 400},
		{true, "/", "data " + secret, 200},
		{false, "/error", `{"message":"invalid token ` + secret + `"}`, 401},
	} {
		status, header, body := get(c.privileged, c.path)
		if status != c.status || body != c.body {
			t.Errorf("privileged %v %s: %d %q, want %d %q", c.privileged, c.path, status, body, c.status, c.body)
		}
		if h := header.Get("X-Echo"); h != "token [REDACTED]" {
			t.Errorf("privileged %v %s: header %q", c.privileged, c.path, h)
		}
	}
}
