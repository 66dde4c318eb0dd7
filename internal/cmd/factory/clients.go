package factory

import (
	"github.com/abx-dev/abx/internal/provider"
)

// learned makes a sandbox's tokens secrets as soon as abx reads them:
// envd's errors and a port's answers may echo them.
func (w *wiring) learned(ep *provider.Endpoint) {
	registerHeaderSecrets(w.f.IO.Secrets, ep.Header)
	w.f.IO.Secrets.AddURLPassword(ep.URL)
}
