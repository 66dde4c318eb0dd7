package cmdutil

import (
	"net/http"

	"github.com/abx-dev/abx/internal/httpclient"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// RegisterSettingSecrets makes the secret settings' values (the API key,
// from a flag, the environment or a file) and any password in a URL
// setting known to the printers, so that no server echoing them gets them
// printed. It reads what was bound, and the environment too, since binding
// may have failed before every value was read.
func (f *Factory) RegisterSettingSecrets(d *provider.Descriptor, bound []BoundSetting) {
	s := f.IO.Secrets
	if d != nil {
		for _, st := range d.Settings {
			v := f.Getenv(st.Env)
			if st.Secret {
				s.Add(v)
			}
			s.AddURLPassword(v)
		}
	}
	for _, b := range bound {
		// "(stdin)" stands for a key abx config leaves unread; it is no
		// secret, and redacting it would hide that word everywhere.
		if b.Secret && !(b.Source == sourceFile && b.Value == stdinPlaceholder) {
			s.Add(b.Value)
		}
		s.AddURLPassword(b.Value)
	}
}

// stdinPlaceholder is the value BindSettings gives a setting whose file is
// '-' when it is not to read stdin.
const stdinPlaceholder = "(stdin)"

// registerHeaderSecrets makes the credentials of a header known to the
// printers: an endpoint's envd access token and traffic token.
func registerHeaderSecrets(s *output.Secrets, h http.Header) {
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
	secrets *output.Secrets
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
