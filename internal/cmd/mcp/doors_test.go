//go:build unix

package mcp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A request whose Host is not a name of this machine (DNS rebinding), or
// that a page elsewhere sent, is refused with 403 before the token is
// looked at; this machine's names and pages are served.
func TestHTTPServesThisMachinesNamesOnly(t *testing.T) {
	t.Parallel()
	u, token := serveOnHTTP(t, nil)
	port := strings.TrimSuffix(strings.TrimPrefix(u, "http://127.0.0.1:"), "/mcp")
	for _, tc := range []struct {
		host, origin, auth string
		want               int
	}{
		{"evil.example:" + port, "", "", http.StatusForbidden},
		{"evil.example:" + port, "", "Bearer " + token, http.StatusForbidden},
		{"", "https://evil.example", "", http.StatusForbidden},
		{"", "https://evil.example", "Bearer " + token, http.StatusForbidden},
		{"localhost:" + port, "", "", http.StatusUnauthorized},
		{"", "http://localhost:5173", "", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{}`))
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %q Origin %q Authorization %v: %d %s, want %d", tc.host, tc.origin, tc.auth != "", resp.StatusCode, body, tc.want)
		}
	}
}

// 20 connections that send a POST of 100000 bytes a byte a second, without
// the token, each get their 401 at once and are closed: the body is never
// waited for.
func TestHTTPAnswersSlowBodiesWithoutTheTokenAtOnce(t *testing.T) {
	t.Parallel()
	u, _ := serveOnHTTP(t, nil)
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answer, err := slowPost(addr, "/mcp", nil, 100000)
			if err != nil {
				t.Errorf("no answer and close within the bound: %v (%q)", err, answer)
				return
			}
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), nil)
			if err != nil {
				t.Errorf("answer %q: %v", answer, err)
				return
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != `Bearer realm="abx mcp"` {
				t.Errorf("answer %q", answer)
			}
		}()
	}
	wg.Wait()
}

// A request with the token whose body stops coming is cut once no byte
// came for the idle bound: it holds the connection no longer.
func TestHTTPCutsAStalledBody(t *testing.T) {
	t.Parallel()
	u, token := serveOnHTTPWith(t, nil, func(o *ServeOptions) { o.bodyIdle = 200 * time.Millisecond })
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	// Nothing after the first byte: only the idle bound can end it.
	answer, err := slowPost(addr, "/mcp", http.Header{"Authorization": {"Bearer " + token},
		"Accept": {"application/json, text/event-stream"}}, 1000, noMore)
	if err != nil && !isReset(err) {
		t.Fatalf("a stalled body held the connection: %v (%q)", err, answer)
	}
}

// noMore makes slowPost send its first byte only.
const noMore = -1

// slowPost sends a POST to path that promises size bytes of body, sends
// one, then one a second (none with noMore) until the server closes the
// connection, and returns what the server answered up to its close (30 s
// at most: the bound of the tests, far above what is expected).
func slowPost(addr, path string, header http.Header, size int, pace ...int) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	var head strings.Builder
	head.WriteString("POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n")
	_ = header.Write(&head)
	head.WriteString("Content-Length: " + strconv.Itoa(size) + "\r\n\r\n{")
	if _, err := io.WriteString(conn, head.String()); err != nil {
		return "", err
	}
	stop := make(chan struct{})
	defer close(stop)
	if len(pace) == 0 {
		go func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := io.WriteString(conn, " "); err != nil {
						return
					}
				}
			}
		}()
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	_, err = io.Copy(&b, conn)
	return b.String(), err
}

// isReset tells a connection the server reset (it closed with unread
// bytes) from one still open.
func isReset(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(err, syscall.ECONNRESET)
}

// Every path of the listener, not only /mcp, is behind the same doors:
// a Host or page elsewhere gets 403, a request without the token 401,
// and with it a path that is not the endpoint 404; each is answered from
// its headers, a slow body never waited for, and the connection closed.
func TestHTTPEveryPathIsBehindTheDoors(t *testing.T) {
	t.Parallel()
	u, token := serveOnHTTP(t, nil)
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	paths := []string{"/", "/mcp/", "/x", "/./mcp", "/%2e/mcp", "/mcp/..", "//mcp"}
	for _, path := range paths {
		if strings.HasPrefix(path, "//") {
			continue // Go's client would send it as a host; the stalled bodies below send it
		}
		for _, tc := range []struct {
			host, origin, auth string
			want               int
		}{
			{"evil.example:1", "", "Bearer " + token, http.StatusForbidden},
			{"", "https://evil.example", "Bearer " + token, http.StatusForbidden},
			{"", "", "", http.StatusUnauthorized},
			{"", "", "Bearer " + token, http.StatusNotFound},
		} {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(`{}`))
			req.URL.Opaque = path // sent as it is, dot segments and all
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("POST %s Host %q Origin %q token %v: %d %s, want %d", path, tc.host, tc.origin, tc.auth != "", resp.StatusCode, body, tc.want)
			}
		}
	}
	var wg sync.WaitGroup
	for _, path := range paths {
		for _, header := range []http.Header{nil, {"Authorization": {"Bearer " + token}}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answer, err := slowPost(addr, path, header, 100000, noMore)
				if err != nil {
					t.Errorf("POST %s (token %v) with a stalled body: no answer and close: %v (%q)", path, header != nil, err, answer)
					return
				}
				want := map[bool]string{false: " 401 ", true: " 404 "}[header != nil]
				if !strings.Contains(strings.SplitN(answer, "\r\n", 2)[0], want) {
					t.Errorf("POST %s (token %v) with a stalled body: %q, want%s", path, header != nil, answer, want)
				}
			}()
		}
	}
	wg.Wait()
}

// A request with the token that the endpoint refuses without reading its
// body (here: it does not accept the answers the protocol sends) gets
// that answer once the idle bound has passed with no byte, and its
// connection closed, rather than waiting for a body that never comes.
func TestHTTPBoundsABodyTheEndpointLeaves(t *testing.T) {
	t.Parallel()
	u, token := serveOnHTTPWith(t, nil, func(o *ServeOptions) { o.bodyIdle = 200 * time.Millisecond })
	addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/mcp")
	answer, err := slowPost(addr, "/mcp", http.Header{"Authorization": {"Bearer " + token}}, 100000, noMore)
	if err != nil {
		t.Fatalf("no answer and close: %v (%q)", err, answer)
	}
	if !strings.HasPrefix(answer, "HTTP/1.1 4") {
		t.Errorf("answer %q", answer)
	}
}
