package factory

import (
	"net/http"

	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/secrets"
)

// registerHeaderSecrets makes the credentials of a header known to the
// printers: an endpoint's envd access token and traffic token.
func registerHeaderSecrets(s *secrets.Set, h http.Header) {
	for k, vs := range h {
		if httpclient.IsSecretHeader(k) {
			s.Add(vs...)
		}
	}
}

// secretsTransport registers every credential a request carries (any
// header httpclient.IsSecretHeader names, a URL's password) before it is
// sent: whatever code path obtained a token, the answer that echoes it
// finds it known.
type secretsTransport struct {
	next    http.RoundTripper
	secrets *secrets.Set
}

func (t *secretsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	registerHeaderSecrets(t.secrets, req.Header)
	if req.URL != nil && req.URL.User != nil {
		if p, ok := req.URL.User.Password(); ok {
			t.secrets.Add(p)
		}
	}
	return t.next.RoundTrip(req)
}
