package loopback

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHost(t *testing.T) {
	t.Parallel()
	names := Names{"abx.test", "engine.local:8080"}
	for host, want := range map[string]bool{
		"127.0.0.1:8080":                true,
		"127.9.9.9":                     true,
		"[::1]:8080":                    true,
		"localhost:8080":                true,
		"LOCALHOST":                     true,
		"49983-sb1.localhost:8080":      true,
		"abx.test":                      true,
		"49999-default--x.abx.test:443": true,
		"engine.local:9999":             true,
		"api.engine.local":              true,
		"evil.example:8080":             false,
		"localhost.evil.example":        false,
		"abx.test.evil.example":         false,
		"notabx.test":                   false,
		"10.0.0.1:8080":                 false,
		"0.0.0.0:8080":                  false,
		"":                              false,
		"[::ffff:127.0.0.1]:80":         true,
		"127.0.0.1.nip.io":              false,
	} {
		if got := names.Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	names := Names{"abx.test"}
	for origin, want := range map[string]bool{
		"":                        true,
		"http://localhost:3000":   true,
		"http://127.0.0.1:8080":   true,
		"https://app.abx.test":    true,
		"https://evil.example":    false,
		"null":                    false,
		"file://":                 false,
		"chrome-extension://abcd": false,
	} {
		if got := names.Origin(origin); got != want {
			t.Errorf("Origin(%q) = %v, want %v", origin, got, want)
		}
	}
}

// A refused request is answered at once, its slow body unread, and the
// connection closed: a client that sends a byte a second holds nothing.
func TestGuardAnswersASlowBodyAtOnce(t *testing.T) {
	t.Parallel()
	reached := false
	srv := httptest.NewServer(Names(nil).Guard(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "POST /sandboxes HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 100000\r\n\r\nx")
	// A hang guard: the server ends the connection at once.
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
	answer, err := io.ReadAll(conn) // to the close: the server ends the connection
	if err != nil {
		t.Fatalf("no answer and close within 2 minutes: %v (%q)", err, answer)
	}
	if !strings.HasPrefix(string(answer), "HTTP/1.1 403 ") || !strings.Contains(string(answer), `Host "evil.example" is not a name of this machine`) || reached {
		t.Errorf("answer %q (handler reached %v)", answer, reached)
	}
}

func TestGuardRefusesAPageElsewhere(t *testing.T) {
	t.Parallel()
	h := Names(nil).Guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{"127.0.0.1:1", "", 204},
		{"127.0.0.1:1", "http://localhost:5173", 204},
		{"127.0.0.1:1", "https://evil.example", 403},
		{"evil.example:1", "", 403},
		{"evil\x1b]0;x\a.example", "", 403},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = tc.host
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want || strings.ContainsAny(w.Body.String(), "\x1b\a") {
			t.Errorf("%q %q: %d %q, want %d", tc.host, tc.origin, w.Code, w.Body, tc.want)
		}
	}
}
