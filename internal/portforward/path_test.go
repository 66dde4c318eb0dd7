package portforward

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/abx-dev/abx/internal/provider"
)

func TestCheckPath(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"/", "/a/b", "/files", "/process.Process/Start", "/a..b/c.", "/%2e%2ex", "/a%20b"} {
		u, err := url.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckPath(u); err != nil {
			t.Errorf("%s refused: %v", p, err)
		}
	}
	for _, p := range []string{"/..", "/a/../b", "/./a", "/a/.", "/%2e%2e/api", "/%2E./x", "/a%2Fb", "/a%2f..", "/a%5cb", `/a\..\b`} {
		u, err := url.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		if CheckPath(u) == nil {
			t.Errorf("%s taken", p)
		}
	}
}

// A port's URL is a prefix of the gateway's (/kruise/ID/PORT): a client
// path that climbs out of it is answered 400 and nothing is sent.
func TestAPathThatLeavesThePortIsRefused(t *testing.T) {
	t.Parallel()
	var heard atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { heard.Add(1) }))
	t.Cleanup(up.Close)
	fw, err := New(&provider.Endpoint{URL: up.URL + "/kruise/sb1/8080"}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(serve(t, fw), "http://")
	for _, target := range []string{"/../../api/sandboxes", "/%2e%2e/%2e%2e/api/sandboxes", "/..%2f..%2fapi", `/..\..\api`} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write([]byte("GET " + target + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		_ = conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", target, resp.StatusCode)
		}
	}
	if n := heard.Load(); n != 0 {
		t.Errorf("the gateway heard %d requests", n)
	}
}
