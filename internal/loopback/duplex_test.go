package loopback

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"
)

// A proxied exchange whose answer begins before its body has all come
// keeps both flowing: the upstream echoes each line as it arrives, and the
// client sends the next line only once it has heard the last one back. An
// HTTP/1.1 server that is not in full duplex would take the body from the
// proxy when the answer's headers went out, and the exchange would stall
// or break mid-stream.
func TestDuplexKeepsTheBodyFlowingWhileTheAnswerStreams(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.EnableFullDuplex()
		w.WriteHeader(http.StatusOK)
		_ = rc.Flush()
		in := bufio.NewScanner(r.Body)
		for in.Scan() {
			_, _ = w.Write(append(in.Bytes(), '\n'))
			_ = rc.Flush()
		}
	}))
	t.Cleanup(echo.Close)
	target, _ := url.Parse(echo.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	proxy := httptest.NewServer(Duplex(rp))
	t.Cleanup(proxy.Close)

	// A bound against a hang, not a measure of speed.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	context.AfterFunc(ctx, func() { _ = pw.CloseWithError(ctx.Err()) })
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxy.URL, pr)
	go func() { _, _ = io.WriteString(pw, "one\n") }()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	out := bufio.NewScanner(resp.Body)
	for i, line := range []string{"one", "two", "three"} {
		if !out.Scan() || out.Text() != line {
			t.Fatalf("line %d: %q, %v; want %q", i, out.Text(), out.Err(), line)
		}
		if i < 2 {
			next := []string{"two\n", "three\n"}[i]
			go func() { _, _ = io.WriteString(pw, next) }()
		}
	}
	_ = pw.Close()
	if out.Scan() {
		t.Errorf("more after the body's end: %q", out.Text())
	}
	if err := out.Err(); err != nil {
		t.Errorf("the answer ended with %v", err)
	}
}
