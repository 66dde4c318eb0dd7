// Package httpclient builds the one HTTP client abx uses for every service:
// proxies and private CAs from the standard environment, no global timeout
// (callers give each call a deadline), and an optional --debug trace with
// secrets redacted.
package httpclient

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// New returns the client. HTTPS_PROXY/HTTP_PROXY/NO_PROXY are honoured by
// http.ProxyFromEnvironment and SSL_CERT_FILE/SSL_CERT_DIR by the system
// certificate pool, so both keep working behind corporate proxies.
func New(debug io.Writer) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	// Streams move megabytes: larger buffers than the default 4 KiB mean
	// fewer system calls a megabyte, on both sides.
	t.WriteBufferSize, t.ReadBufferSize = 64<<10, 64<<10
	var rt http.RoundTripper = t
	if debug != nil {
		rt = &tracer{next: t, w: debug}
	}
	return &http.Client{Transport: rt, CheckRedirect: CheckRedirect}
}

// tracer writes one line per request and per response, and their headers,
// with every secret-bearing header redacted.
type tracer struct {
	next http.RoundTripper
	mu   sync.Mutex
	w    io.Writer
}

func (t *tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	t.print("> %s %s\n%s", req.Method, req.URL.Redacted(), headerLines("> ", req.Header))
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.print("< %s %s: %v (%s)\n", req.Method, req.URL.Redacted(), err, time.Since(start).Round(time.Millisecond))
		return nil, err
	}
	t.print("< %s (%s)\n%s", resp.Status, time.Since(start).Round(time.Millisecond), headerLines("< ", resp.Header))
	return resp, nil
}

func (t *tracer) print(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = fmt.Fprintf(t.w, format, args...)
}

func headerLines(prefix string, h http.Header) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		v := strings.Join(h[k], ", ")
		if IsSecretHeader(k) {
			v = "REDACTED"
		}
		fmt.Fprintf(&b, "%s%s: %s\n", prefix, k, v)
	}
	return b.String()
}

// IsSecretHeader reports whether a header carries a credential: the API key,
// envd's access token, the traffic token, Authorization, cookies, and any
// other header whose name says key, token, secret or auth.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "x-next-token" {
		return false // a page cursor, and the first thing to look at when paging misbehaves
	}
	for _, word := range []string{"key", "token", "secret", "auth", "cookie"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}
