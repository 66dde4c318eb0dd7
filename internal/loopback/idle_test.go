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

// A body that stops coming is cut after the idle bound; one read to its
// end leaves the connection without a deadline, so that the handler may
// answer long after without its request being cancelled.
func TestIdleBody(t *testing.T) {
	t.Parallel()
	const idle = 50 * time.Millisecond
	whole, stalled, proceed := make(chan struct{}), make(chan error, 1), make(chan struct{})
	alive := make(chan bool, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stalled" {
			// Four times the bound of /whole: when this body is cut, the
			// whole one's connection would have been cut too, had it kept
			// its deadline.
			IdleBody(w, r, 4*idle)
			_, err := io.ReadAll(r.Body)
			stalled <- err
			return
		}
		IdleBody(w, r, idle)
		if b, err := io.ReadAll(r.Body); err != nil || string(b) != "whole" {
			t.Errorf("a whole body: %q %v", b, err)
		}
		close(whole)
		<-proceed
		alive <- r.Context().Err() == nil
		_, _ = io.WriteString(w, "done")
	}))
	t.Cleanup(srv.Close)

	answered := make(chan string, 1)
	go func() {
		resp, err := http.Post(srv.URL+"/whole", "text/plain", strings.NewReader("whole"))
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		answered <- string(b)
	}()
	<-whole
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "POST /stalled HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
	select {
	case err := <-stalled:
		if err == nil {
			t.Error("a stalled body read whole")
		}
		close(proceed)
	case <-time.After(30 * time.Second):
		t.Fatal("a stalled body was waited for past 30 s")
	}
	if !<-alive {
		t.Error("the request whose body was read whole was cancelled by the idle bound")
	}
	if got := <-answered; got != "done" {
		t.Errorf("answer %q", got)
	}
}

// A handler that answers without reading the body (a 404, a refusal of
// its own) leaves the body to the server, which reads what is left of it
// before it answers: that read is bounded too, so that a body that stops
// coming gets its answer after the idle bound, and its connection closed,
// instead of holding both for ever.
func TestIdleBodyBoundsABodyTheHandlerLeaves(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer IdleBody(w, r, 50*time.Millisecond)()
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.WriteString(conn, "GET /v2/sandboxes HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{")
	// Far above the bound: only a read with no deadline lasts that long.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	answer, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("no answer and close: %v (%q)", err, answer)
	}
	if !strings.HasPrefix(string(answer), "HTTP/1.1 404 ") || !strings.Contains(string(answer), "Connection: close") {
		t.Errorf("answer %q", answer)
	}
}
