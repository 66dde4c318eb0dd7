package portforward

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/loopback"
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

// The endpoint's renewing credential goes with each request, as it is at
// that request's start; when none can be had (a traffic token that
// expired and could not be renewed) nothing is sent, and the client and
// OnFailure are told why in abx's words.
func TestARenewingCredentialGoesWithEachRequest(t *testing.T) {
	t.Parallel()
	var heard []string
	up := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		heard = append(heard, r.Header.Get("E2B-Traffic-Access-Token"))
	}))
	t.Cleanup(up.Close)
	values := []string{"first", "second"}
	var failed error
	ep := &provider.Endpoint{URL: up.URL, Renewing: &provider.RenewingHeader{Name: "E2B-Traffic-Access-Token",
		Value: func(context.Context) (string, error) {
			if len(values) == 0 {
				return "", abxerr.New(abxerr.Server, "the traffic token of sandbox sb1 expired and could not be renewed")
			}
			v := values[0]
			values = values[1:]
			return v, nil
		}}}
	fw, err := New(ep, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	fw.OnFailure = func(_ int, err error) { failed = err }
	url := serve(t, fw)
	for i := range 3 {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		switch {
		case i < 2 && resp.StatusCode != http.StatusOK:
			t.Errorf("request %d: %d %q", i, resp.StatusCode, body)
		case i == 2 && (resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "expired and could not be renewed") || failed == nil):
			t.Errorf("without a token: %d %q, OnFailure heard %v", resp.StatusCode, body, failed)
		}
	}
	if strings.Join(heard, ",") != "first,second" {
		t.Errorf("the port heard tokens %q, want first,second and nothing after", heard)
	}
}

// A port that answers before it has read the whole request (a stream that
// starts at once, as Connect's and NDJSON servers may) gets the rest of
// the body all the same. An HTTP/1 server drains a request's unread body
// at the first write of its answer unless told not to; a forwarder whose
// answer begins while it still copies the body would lose the body's tail
// and its connection to the port ("use of closed network connection").
func TestAnAnswerMayStartBeforeTheBodyEnds(t *testing.T) {
	t.Parallel()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		_, _ = io.WriteString(w, "started; ")
		_ = http.NewResponseController(w).Flush()
		b, err := io.ReadAll(r.Body)
		_, _ = fmt.Fprintf(w, "got %d bytes, %v", len(b), err)
	}))
	t.Cleanup(up.Close)
	fw, err := New(&provider.Endpoint{URL: up.URL}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	half := strings.Repeat("x", 50<<10)
	started := make(chan struct{})
	var once sync.Once
	begun := func() { once.Do(func() { close(started) }) }
	defer begun() // a failure still lets the handlers end
	// The forwarder reads the second half only once the answer has begun,
	// which is the order a loaded machine may pick.
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &gate{ReadCloser: r.Body, after: len(half), open: started}
		fw.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	body, send := io.Pipe()
	req, _ := http.NewRequestWithContext(ctx, "POST", front.URL, body)
	req.ContentLength = int64(2 * len(half))
	go func() {
		_, _ = io.WriteString(send, half)
		select {
		case <-started:
		case <-ctx.Done(): // the answer never began: end the request
			_ = send.CloseWithError(ctx.Err())
			return
		}
		_, _ = io.WriteString(send, half)
		_ = send.Close()
	}()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	first := make([]byte, len("started; "))
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	begun()
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "got 102400 bytes, <nil>" {
		t.Fatalf("%q %v", rest, err)
	}
}

// gate holds reads past after bytes until open is closed.
type gate struct {
	io.ReadCloser
	after, n int
	open     chan struct{}
}

func (g *gate) Read(p []byte) (int, error) {
	if g.n >= g.after {
		<-g.open
	}
	n, err := g.ReadCloser.Read(p)
	g.n += n
	return n, err
}

// A forwarder whose port leads back to itself (a sandbox port the gateway
// maps to this very listener) sees its own mark on the request it sent
// and refuses it with 508, instead of forwarding it again until files run
// out. Another server's mark is passed on with its own added.
func TestALoopBackToTheForwarderIsRefused(t *testing.T) {
	t.Parallel()
	ts := httptest.NewUnstartedServer(nil)
	fw, err := New(&provider.Endpoint{URL: "http://" + ts.Listener.Addr().String(), Header: http.Header{"E2b-Sandbox-Id": {"sb1"}}},
		http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	fw.Hop = loopback.NewHop()
	count := 0
	var mu sync.Mutex
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		count++
		mu.Unlock()
		fw.ServeHTTP(w, r)
	})
	ts.Start()
	t.Cleanup(ts.Close)
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if resp.StatusCode != http.StatusLoopDetected || count != 2 {
		t.Errorf("%d after %d requests, want 508 after 2", resp.StatusCode, count)
	}

	// Marks of the servers before it go on, with this one's.
	var heard http.Header
	up := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { heard = r.Header.Clone() }))
	t.Cleanup(up.Close)
	next, err := New(&provider.Endpoint{URL: up.URL}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	next.Hop = loopback.NewHop()
	other := loopback.NewHop()
	req, _ := http.NewRequest("GET", serve(t, next)+"/", nil)
	other.Mark(req.Header)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("through a forwarder of its own: %d", resp.StatusCode)
	}
	if !other.Seen(heard) || !next.Hop.Seen(heard) {
		t.Errorf("the port heard marks %q", heard.Values(loopback.HopHeader))
	}
}
