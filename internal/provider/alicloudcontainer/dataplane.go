package alicloudcontainer

import (
	"context"
	"net/http"
	"strconv"

	"github.com/abx-dev/abx/internal/provider"
)

var _ provider.DataPlane = (*Client)(nil)

// Endpoint reads the sandbox with GET /sandboxes/{id}, which has no side
// effects and returns the envd access token, and builds the URL of port
// from the URL rules. /connect is not used: it would resume the sandbox
// and move its deadline.
//
// Each port gets the credentials it needs (docs/protocol.md,
// "Credentials"): the envd access token only envd and the code
// interpreter, which hands it to envd; a server the sandbox runs on any
// other port would learn from it how to run anything as anyone in the
// sandbox. The traffic token is the gateway's: OpenKruise's
// sandbox-gateway checks it on any port of a sandbox whose traffic is
// guarded, and takes it off before the request goes on; every port gets
// it, renewed as it expires (traffic.go).
func (c *Client) Endpoint(ctx context.Context, id string, port int) (*provider.Endpoint, error) {
	if port == 0 {
		port = c.cfg.EnvdPort
	}
	w, err := c.get(ctx, id)
	if err != nil {
		return nil, err
	}
	u, err := c.cfg.PortURL(id, w.Domain, port)
	if err != nil {
		return nil, err
	}
	privileged := port == c.cfg.EnvdPort || port == provider.CodeInterpreterPort
	h := http.Header{}
	h.Set("E2b-Sandbox-Id", id)
	h.Set("E2b-Sandbox-Port", strconv.Itoa(port))
	if w.EnvdAccessToken != "" && privileged {
		h.Set("X-Access-Token", w.EnvdAccessToken)
	}
	return &provider.Endpoint{SandboxID: id, Port: port, URL: u, Header: h, EnvdVersion: w.EnvdVersion, State: w.State, Metadata: w.Metadata,
		RequestTimeout: c.cfg.RequestTimeout, IdleTimeout: c.cfg.IdleTimeout, Privileged: privileged,
		Renewing: renewing(c.seen(w))}, nil
}
