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
	h := http.Header{}
	h.Set("E2b-Sandbox-Id", id)
	h.Set("E2b-Sandbox-Port", strconv.Itoa(port))
	if w.EnvdAccessToken != "" {
		h.Set("X-Access-Token", w.EnvdAccessToken)
	}
	if w.TrafficAccessToken != "" {
		h.Set("E2B-Traffic-Access-Token", w.TrafficAccessToken)
	}
	return &provider.Endpoint{SandboxID: id, Port: port, URL: u, Header: h, EnvdVersion: w.EnvdVersion, State: w.State,
		RequestTimeout: c.cfg.RequestTimeout, IdleTimeout: c.cfg.IdleTimeout}, nil
}
