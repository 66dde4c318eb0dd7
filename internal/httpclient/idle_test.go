package httpclient

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// A body that stops arriving fails with the idle error once the bound
// passes; one that trickles faster than the bound is read whole.
func TestIdleBound(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := w.(http.Flusher)
		for i := range 6 {
			_, _ = io.WriteString(w, "x")
			f.Flush()
			if r.URL.Path == "/stall" && i == 1 {
				<-r.Context().Done()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}))
	defer srv.Close()
	hc := WithIdle(New(nil), 400*time.Millisecond)

	resp, err := hc.Get(srv.URL + "/trickle")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || string(b) != "xxxxxx" {
		t.Errorf("trickle: %q, %v", b, err)
	}

	resp, err = hc.Get(srv.URL + "/stall")
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Network || !strings.Contains(e.Message, "sent nothing for 400ms") || string(b) != "xx" {
		t.Errorf("stall: %q, %v", b, err)
	}
}

// A reader that pauses (a pager, a slow disk) longer than the bound is not
// a stalled stream: only waiting on the network counts.
func TestIdleBoundIgnoresAPausedReader(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	}))
	defer srv.Close()
	resp, err := WithIdle(New(nil), 200*time.Millisecond).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	first := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	rest, err := io.ReadAll(resp.Body)
	if err != nil || len(rest) != 990 {
		t.Errorf("after a pause: %d bytes, %v", len(rest), err)
	}
}

// An upload whose own source is slow (stdin) is not stalled either.
func TestIdleBoundIgnoresASlowSource(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		_, _ = fmt.Fprint(w, n)
	}))
	defer srv.Close()
	pr, pw := io.Pipe()
	go func() {
		for range 3 {
			_, _ = pw.Write([]byte("abc"))
			time.Sleep(400 * time.Millisecond)
		}
		_ = pw.Close()
	}()
	resp, err := WithIdle(New(nil), 200*time.Millisecond).Post(srv.URL, "text/plain", pr)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(b) != "9" {
		t.Errorf("server got %q bytes", b)
	}
}

// A server that answers nothing at all is given up too, before headers.
func TestIdleBoundBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	resp, err := WithIdle(New(nil), 300*time.Millisecond).Get(srv.URL)
	if err == nil {
		_ = resp.Body.Close()
	}
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Network {
		t.Errorf("got %v", err)
	}
}

// Redirects: never to another origin, never a request with a body turned
// into a GET; a GET within the origin is followed.
func TestRedirects(t *testing.T) {
	t.Parallel()
	var other []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		other = append(other, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-API-Key"))
	}))
	defer elsewhere.Close()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, elsewhere.URL+"/stolen", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, srv.URL+"/here", http.StatusFound)
		case "/here":
			_, _ = io.WriteString(w, "here")
		}
	}))
	defer srv.Close()
	hc := New(nil)

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/away", nil)
	req.Header.Set("X-API-Key", "sk-secret")
	if err := refused(hc.Do(req)); abxerr.From(err).Code != abxerr.BadResponse || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("cross-origin: %v", err)
	}
	if err := refused(hc.Post(srv.URL+"/moved", "text/plain", strings.NewReader("body"))); abxerr.From(err).Code != abxerr.BadResponse ||
		!strings.Contains(err.Error(), "would resend it as GET") {
		t.Errorf("POST turned GET: %v", err)
	}
	resp, err := hc.Get(srv.URL + "/moved")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if string(b) != "here" {
		t.Errorf("same-origin GET: %q", b)
	}
	if len(other) != 0 {
		t.Errorf("the other origin got %v", other)
	}
}

func TestOrigin(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{"https://h.example/a", "https://H.EXAMPLE:443/b"},
		{"http://127.0.0.1/a", "http://127.0.0.1:80/b"},
	}
	for _, p := range same {
		a, _ := url.Parse(p[0])
		b, _ := url.Parse(p[1])
		if origin(a) != origin(b) {
			t.Errorf("%s and %s differ: %s %s", p[0], p[1], origin(a), origin(b))
		}
	}
	differ := [][2]string{
		{"https://h.example/a", "http://h.example/a"},
		{"https://h.example/a", "https://h.example:8443/a"},
		{"https://h.example/a", "https://h.example.evil/a"},
	}
	for _, p := range differ {
		a, _ := url.Parse(p[0])
		b, _ := url.Parse(p[1])
		if origin(a) == origin(b) {
			t.Errorf("%s and %s are one origin", p[0], p[1])
		}
	}
}

// refused is the error of a request expected to fail.
func refused(resp *http.Response, err error) error {
	if resp != nil {
		_ = resp.Body.Close()
	}
	return err
}
