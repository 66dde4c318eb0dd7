package portforward

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/provider"
)

// upstream is a sandbox port behind its gateway: it wants the routing
// header, echoes requests, and speaks an echo protocol after an upgrade.
func upstream(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("E2b-Sandbox-Id") != "sb1" {
			http.Error(w, "misrouted", http.StatusBadRequest)
			return
		}
		if r.Header.Get("Upgrade") == "echo" {
			conn, rw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer func() { _ = conn.Close() }()
			_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
			_ = rw.Flush()
			line, _ := rw.ReadString('\n')
			_, _ = rw.WriteString("echo: " + line)
			_ = rw.Flush()
			return
		}
		_, _ = io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func serve(t *testing.T, fw *Forwarder) string {
	t.Helper()
	ts := httptest.NewServer(fw)
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestRequestsGoToThePortWithItsRouting(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	fw, err := New(&provider.Endpoint{URL: up.URL + "/", Header: http.Header{"E2b-Sandbox-Id": {"sb1"}}}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", serve(t, fw)+"/a/b?c=d", nil)
	// What the local client sends is the sandbox application's business:
	// it goes through, as port-forward's bytes would.
	req.Header.Set("Authorization", "Basic YXBwOnB3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "GET /a/b?c=d Basic YXBwOnB3" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

func TestUpgradesPassThrough(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	fw, err := New(&provider.Endpoint{URL: up.URL, Header: http.Header{"E2b-Sandbox-Id": {"sb1"}}}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(serve(t, fw), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_, _ = io.WriteString(conn, "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close() // a 101 has no body: what follows is the echo protocol
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %d", resp.StatusCode)
	}
	_, _ = io.WriteString(conn, "hello\n")
	if line, err := r.ReadString('\n'); err != nil || line != "echo: hello\n" {
		t.Fatalf("after the upgrade: %q %v", line, err)
	}
}

func TestAFailingPortIsReported(t *testing.T) {
	t.Parallel()
	var statuses []int
	fw, err := New(&provider.Endpoint{URL: "http://127.0.0.1:1"}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	fw.OnFailure = func(status int, _ error) { statuses = append(statuses, status) }
	resp, err := http.Get(serve(t, fw))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || len(statuses) != 1 {
		t.Fatalf("%d, heard %v", resp.StatusCode, statuses)
	}
}
