//go:build unix

package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/engine"
)

// Twenty clients that send a body of 100 000 bytes one byte at a time,
// without the token, get their 401 at once and their connection closed:
// the token is checked on the headers, and the body is never read.
func TestSlowBodiesWithoutTheTokenAreAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	fx := start(t)
	id := fx.create(t, "code-interpreter")["sandboxID"].(string)
	heads := []string{
		"POST /sandboxes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
		"POST /execute HTTP/1.1\r\nHost: 127.0.0.1\r\nE2b-Sandbox-Id: " + id + "\r\nE2b-Sandbox-Port: 49999\r\n",
		"POST /files?path=x HTTP/1.1\r\nHost: 127.0.0.1\r\nE2b-Sandbox-Id: " + id + "\r\nE2b-Sandbox-Port: 49983\r\nX-Access-Token: wrong\r\n",
	}
	var wg sync.WaitGroup
	answers := make([]string, 20)
	errs := make([]error, 20)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = slowPost(fx.url, heads[i%len(heads)])
		}()
	}
	wg.Wait()
	for i := range answers {
		if errs[i] != nil || !strings.HasPrefix(answers[i], "HTTP/1.1 401 ") || !strings.Contains(answers[i], `"code":401`) {
			t.Errorf("connection %d: %v, %q", i, errs[i], answers[i])
		}
	}
	if n := len(fx.emu.Gateway.Jupyter(id).Requests()); n != 0 {
		t.Errorf("the interpreter heard %d requests", n)
	}
}

// slowPost sends head and a Content-Length of 100 000, then the body a
// byte at a time until the server closes the connection, and returns what
// it answered. The server must answer and close within a generous bound.
func slowPost(url, head string) (string, error) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		return "", err
	}
	defer func() { _ = conn.Close() }()
	if _, err := io.WriteString(conn, head+"Content-Length: 100000\r\n\r\nx"); err != nil {
		return "", err
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(16 * time.Second))
	answer, err := io.ReadAll(conn) // to the close: the server ends the connection
	if err != nil {
		return string(answer), fmt.Errorf("no answer and close within 16 s: %w", err)
	}
	return string(answer), nil
}

// An authenticated body that stops arriving is cut once it has sent
// nothing for the idle bound; the port's server sees its body end in an
// error rather than wait for ever.
func TestAStalledBodyIsCut(t *testing.T) {
	t.Parallel()
	got := make(chan error, 1)
	port := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, err := io.Copy(io.Discard, r.Body)
		got <- err
	}))
	t.Cleanup(port.Close)
	fx := startShared(t, func(o *engine.Options) { o.BodyIdle = time.Second })
	id := fx.create(t, "base")["sandboxID"].(string)
	conn, err := net.Dial("tcp", strings.TrimPrefix(fx.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_, _ = fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nE2b-Sandbox-Id: %s\r\nE2b-Sandbox-Port: %d\r\n"+
		"X-Access-Token: %s\r\nContent-Length: 100000\r\n\r\nsome of it", id, port.Listener.Addr().(*net.TCPAddr).Port, token)
	select {
	case err := <-got:
		if err == nil {
			t.Error("the port's server read a whole body that was never sent")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the stalled body was not cut within 30 s")
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Errorf("the client's connection did not end: %v", err)
	}
}

// A request for the engine's own port, which the emulator's gateway maps
// to the engine itself, comes back with the engine's mark and is refused
// with 508 rather than forwarded again until files run out.
func TestALoopThroughTheEngineIsRefused(t *testing.T) {
	t.Parallel()
	fx := startShared(t)
	id := fx.create(t, "base")["sandboxID"].(string)
	before := fx.served.Load()
	status, body := fx.send(t, "GET", "/", map[string]string{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": strconv.Itoa(fx.port),
		"X-Access-Token": token}, "")
	if status != http.StatusLoopDetected || !strings.Contains(body, `"code":508`) {
		t.Errorf("a request to the engine's own port: %d %s, want 508 in E2B's envelope", status, body)
	}
	if n := fx.served.Load() - before; n != 2 {
		t.Errorf("the engine served %d requests, want 2: the client's and its own, back", n)
	}
}

// Forwards at once are bounded: past the bound, a request is answered 503
// at once rather than opening more connections.
func TestForwardsAtOnceAreBounded(t *testing.T) {
	t.Parallel()
	reached, release := make(chan struct{}, 3), make(chan struct{})
	port := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		reached <- struct{}{}
		<-release
	}))
	t.Cleanup(port.Close)
	t.Cleanup(func() { close(release) })
	fx := startShared(t, func(o *engine.Options) { o.MaxForwards = 2 })
	id := fx.create(t, "base")["sandboxID"].(string)
	head := fmt.Sprintf("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nE2b-Sandbox-Id: %s\r\nE2b-Sandbox-Port: %d\r\nX-Access-Token: %s\r\n\r\n",
		id, port.Listener.Addr().(*net.TCPAddr).Port, token)
	for range 2 {
		conn, err := net.Dial("tcp", strings.TrimPrefix(fx.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		_, _ = io.WriteString(conn, head)
		<-reached
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(fx.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_, _ = io.WriteString(conn, head)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the third forward: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("the third forward at once: %d, want 503", resp.StatusCode)
	}
}
