package httpclient

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
)

// maxRedirects bounds a chain of redirects within one origin.
const maxRedirects = 5

// apiKeyHeader carries the provider's API key, which only the API's own
// routes may receive.
const apiKeyHeader = "X-API-Key"

// CheckRedirect keeps credentials at their origin and requests as they
// were sent. Every request abx makes carries a credential (the API key,
// envd's token, the traffic token, a Basic user), and the transport adds
// some of them to each request it sends, so a redirect to another scheme,
// host or port is refused rather than followed with them stripped. Within
// the origin, a request that carries the API key is not redirected at
// all: under the private protocol the API and every sandbox's ports share
// one origin, so another path may be a sandbox's own server, and the API
// has no route that moves. A redirect that would turn a request with a
// body into a GET (301, 302 and 303 do) is refused too: the body would be
// lost, and a create or an upload reported as something it is not
// (docs/reliability.md, "Redirects").
func CheckRedirect(req *http.Request, via []*http.Request) error {
	first, prev := via[0], via[len(via)-1]
	if origin(req.URL) != origin(first.URL) {
		return abxerr.New(abxerr.BadResponse, "the service redirected %s %s to another origin (%s://%s); abx does not follow it, so that credentials stay where they belong",
			first.Method, first.URL.Redacted(), req.URL.Scheme, req.URL.Host).
			WithHint("point abx at the final address (--base-url or --domain) if the service has moved")
	}
	if first.Header.Get(apiKeyHeader) != "" {
		return abxerr.New(abxerr.BadResponse, "the service redirected %s %s to %s; abx follows no redirect of a request that carries the API key, so that the key goes to the route it was sent to only",
			first.Method, first.URL.Redacted(), req.URL.Redacted()).
			WithHint("point abx at the final address (--base-url or --domain) if the service has moved")
	}
	if req.Method != prev.Method {
		return abxerr.New(abxerr.BadResponse, "the service redirected %s %s with %d, which would resend it as %s without its body; abx does not follow it",
			prev.Method, prev.URL.Redacted(), req.Response.StatusCode, req.Method).
			WithHint("the service should answer 307 or 308 to move such a request, or be called at its final address")
	}
	if len(via) > maxRedirects {
		return abxerr.New(abxerr.BadResponse, "the service redirected %s %s more than %d times", first.Method, first.URL.Redacted(), maxRedirects)
	}
	return nil
}

// origin is a URL's scheme, host and port as browsers compare them: case
// does not matter in the host, and the scheme's default port is the same
// as none.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" || (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
