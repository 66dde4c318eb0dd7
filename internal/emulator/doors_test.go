//go:build unix

package emulator

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/loopback"
)

// send sends one request to url with Host and headers as given, and the
// key, and returns the answer.
func send(t *testing.T, method, url, host string, header map[string]string, key string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	req.Header.Set("X-API-Key", key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The gateway answers the names this machine's clients use (loopback, the
// SDKs' PORT-ID.localhost, the configured domain), and a 403 to any other
// Host or to a page elsewhere, before the request reaches the manager or
// a sandbox.
func TestGatewayServesThisMachinesNamesOnly(t *testing.T) {
	t.Parallel()
	e, err := Start(Options{KeepRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	id := createSandbox(t, e, `{"templateID":"base"}`)
	port := strings.TrimPrefix(e.URL, "http://127.0.0.1:")
	e.Manager.ResetLog()
	list := e.URL + "/kruise/api/v2/sandboxes"
	for _, tc := range []struct {
		url, host, origin string
		want              int
	}{
		{list, "", "", http.StatusOK},
		{list, "localhost:" + port, "", http.StatusOK},
		{list, "[::1]:" + port, "", http.StatusOK},
		{list, "", "http://localhost:5173", http.StatusOK},
		{e.URL + "/health", "49983-" + id + ".localhost:" + port, "", http.StatusUnauthorized}, // envd: no token
		{list, "evil.example:" + port, "", http.StatusForbidden},
		{list, "localhost.evil.example:" + port, "", http.StatusForbidden},
		{list, "", "https://evil.example", http.StatusForbidden},
		{list, "", "null", http.StatusForbidden},
		{e.URL + "/health", "49983-" + id + ".evil.example:" + port, "", http.StatusForbidden},
	} {
		h := map[string]string{}
		if tc.origin != "" {
			h["Origin"] = tc.origin
		}
		status, body := send(t, "GET", tc.url, tc.host, h, e.APIKey)
		if status != tc.want {
			t.Errorf("Host %q Origin %q: %d %s, want %d", tc.host, tc.origin, status, body, tc.want)
		}
		if status == http.StatusForbidden && !strings.Contains(body, "abx serves this machine's clients only") {
			t.Errorf("Host %q Origin %q: 403 %q", tc.host, tc.origin, body)
		}
	}
	// Only the four requests served reached the manager.
	if n := len(e.Manager.Requests()); n != 4 {
		t.Errorf("the manager saw %d requests, want 4: %+v", n, e.Manager.Requests())
	}
}

// A gateway with a domain (the stories' abx.test, served over TLS for
// *.abx.test) answers that domain's names too, and no name merely like it.
func TestGatewayServesItsDomain(t *testing.T) {
	t.Parallel()
	m := manager.New(manager.Options{APIKey: "k", Domain: "abx.test", KeepRequests: true})
	g := NewGateway(m, t.TempDir(), "")
	ts := httptest.NewServer(g)
	t.Cleanup(ts.Close)
	t.Cleanup(g.Close)
	for host, want := range map[string]int{
		"api.abx.test":                           http.StatusOK,
		"abx.test":                               http.StatusOK,
		"ABX.TEST.":                              http.StatusOK,
		"49983-default--base-xxxxx.abx.test":     http.StatusBadGateway, // no such sandbox: routed, not refused
		"abx.test.evil.example":                  http.StatusForbidden,
		"notabx.test":                            http.StatusForbidden,
		"49983-default--base-xxxxx.evil.example": http.StatusForbidden,
	} {
		if status, body := send(t, "GET", ts.URL+"/v2/sandboxes", host, nil, "k"); status != want {
			t.Errorf("Host %q: %d %s, want %d", host, status, body, want)
		}
	}
}

// A request for the gateway's own port of a sandbox would make it call
// itself without end: it is refused at once. One that comes back through
// another listener of the same gateway bears its mark and is refused the
// same way; either answer is the gateway's 508.
func TestGatewayRefusesALoop(t *testing.T) {
	t.Parallel()
	// Only a sandbox that shares this machine's network (no isolation)
	// has the gateway's port among its own.
	e, err := Start(Options{KeepRequests: true, Isolation: IsolationNone})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	id := createSandbox(t, e, `{"templateID":"base"}`)
	own := strings.TrimPrefix(e.URL, "http://127.0.0.1:")
	for _, h := range []map[string]string{
		nil,
		{"E2b-Sandbox-Id": id, "E2b-Sandbox-Port": own},
	} {
		url := e.URL + "/kruise/" + id + "/" + own + "/kruise/api/v2/sandboxes"
		if h != nil {
			url = e.URL + "/kruise/api/v2/sandboxes"
		}
		status, body := send(t, "GET", url, "", h, e.APIKey)
		if status != http.StatusLoopDetected || !strings.Contains(body, "leads back to this gateway") {
			t.Errorf("port %s of %s (headers %v): %d %q, want 508", own, id, h, status, body)
		}
	}

	// The same gateway on a second listener: a request for its port comes
	// back marked.
	other := httptest.NewServer(e.Gateway)
	defer other.Close()
	otherPort := other.Listener.Addr().(*net.TCPAddr).Port
	status, body := send(t, "GET", e.URL+"/kruise/"+id+"/"+strconv.Itoa(otherPort)+"/kruise/"+id+"/"+strconv.Itoa(otherPort)+"/health", "", nil, e.APIKey)
	if status != http.StatusLoopDetected || !strings.Contains(body, "came back to this gateway") {
		t.Errorf("through a second listener: %d %q, want 508", status, body)
	}
	// Marked by another server of abx's (an engine before it): served.
	marked := map[string]string{loopback.HopHeader: string(loopback.NewHop())}
	if status, body := send(t, "GET", e.URL+"/kruise/api/v2/sandboxes", "", marked, e.APIKey); status != http.StatusOK {
		t.Errorf("a request another server marked: %d %s", status, body)
	}
}

// Forwards to a sandbox's ports are bounded: past MaxForwards at once the
// gateway answers 503 at once, and serves again when one ends.
func TestGatewayBoundsForwardsAtOnce(t *testing.T) {
	t.Parallel()
	f := newGatewayFixture(t)
	f.g.MaxForwards = 2
	// The sandbox shares this machine's network, so that the test's own
	// server serves its port.
	f.g.Isolated = false
	id, _ := f.create("base")

	// A server a sandbox started: it holds each request until released.
	in, release := make(chan struct{}, 8), make(chan struct{})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		in <- struct{}{}
		<-release
		w.WriteHeader(http.StatusNoContent)
	}))
	defer app.Close()
	appURL := f.url + "/kruise/" + id + "/" + strconv.Itoa(app.Listener.Addr().(*net.TCPAddr).Port) + "/"
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(appURL)
			if err != nil {
				t.Error(err)
				return
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				t.Errorf("a forward within the bound: %d", resp.StatusCode)
			}
		}()
		<-in
	}
	third := &http.Client{Timeout: 30 * time.Second} // without the bound it would wait for ever
	resp, err := third.Get(appURL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a third forward at once: %d %v", resp.StatusCode, resp.Header)
	}
	// The API is no forward: it is served meanwhile.
	if status, body := send(t, "GET", f.url+"/v2/sandboxes", "", nil, "k"); status != http.StatusOK {
		t.Errorf("the API while the forwards are full: %d %s", status, body)
	}
	close(release)
	wg.Wait()
	if status, body := send(t, "GET", appURL, "", nil, ""); status != http.StatusNoContent {
		t.Errorf("after the others ended: %d %s", status, body)
	}
}

// A request without the key, or to envd without the token, is answered
// 401 from its headers: 20 connections that send a large body a byte at a
// time each get their answer, and the gateway closes them, without
// waiting for the bodies.
func TestGatewayAnswersSlowBodiesWithoutTheKeyAtOnce(t *testing.T) {
	t.Parallel()
	e, err := Start(Options{KeepRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	id := createSandbox(t, e, `{"templateID":"base"}`)
	addr := strings.TrimPrefix(e.URL, "http://")
	paths := []string{"/kruise/api/sandboxes", "/sandboxes", "/kruise/" + id + "/49983/files?path=x&username=user"}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := paths[i%len(paths)]
			answer, err := slowPost(addr, path)
			if err != nil {
				t.Errorf("POST %s: no answer and close within the bound: %v (%q)", path, err, answer)
				return
			}
			if !strings.HasPrefix(answer, "HTTP/1.1 401 ") {
				t.Errorf("POST %s: %q", path, answer)
			}
		}()
	}
	wg.Wait()
	// The refused requests are logged without their bodies.
	for _, r := range e.Manager.Requests() {
		if r.Method == "POST" && r.Header.Get("X-Api-Key") == "" && r.Body != "" {
			t.Errorf("a refused request's body was read: %+v", r)
		}
	}
}

// slowPost sends a POST that promises 100000 bytes of body and sends one,
// then one a second until the server closes the connection, and returns
// what the server answered up to its close (30 s at most).
func slowPost(addr, path string) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: "+addr+
		"\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"); err != nil {
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
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	_, err = io.Copy(&b, bufio.NewReader(conn))
	return b.String(), err
}
