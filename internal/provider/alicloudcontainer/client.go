package alicloudcontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Client talks to the sandbox-manager's E2B-shaped API. It implements
// provider.Provider.
type Client struct {
	cfg  Config
	http *http.Client
	api  string
}

var _ provider.Provider = (*Client)(nil)

// New checks cfg and returns a client; nothing is sent yet.
func New(cfg Config, deps provider.Deps) (*Client, error) {
	if problems := cfg.Problems(); len(problems) > 0 {
		return nil, problems[0]
	}
	hc := deps.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{cfg: cfg, http: hc, api: cfg.APIBase()}, nil
}

// reply is what a call got back: the status and the headers worth keeping.
type reply struct {
	status    int
	nextToken string
}

// call sends one API request with the per-call deadline and decodes a JSON
// answer into out (when out is not nil and the body is not empty). Any
// status outside ok is turned into an *abxerr.Error.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out any, ok ...int) (reply, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()

	u := c.api + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return reply{}, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return reply{}, abxerr.New(abxerr.InvalidConfig, "cannot build a request to %s: %v", c.api, err)
	}
	req.Header.Set("X-API-Key", c.cfg.APIKey)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{}, abxerr.From(err)
	}
	defer func() { _ = resp.Body.Close() }()

	// Bodies of the control plane are small; cap them so a misrouted
	// request to a file server cannot fill memory.
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return reply{}, abxerr.From(err)
	}
	r := reply{status: resp.StatusCode, nextToken: resp.Header.Get("X-Next-Token")}
	for _, s := range ok {
		if resp.StatusCode == s {
			if out != nil && len(bytes.TrimSpace(raw)) > 0 {
				if err := json.Unmarshal(raw, out); err != nil {
					return r, &abxerr.Error{Code: abxerr.BadResponse, Cause: err, Status: resp.StatusCode,
						Message:   fmt.Sprintf("cannot read the answer to %s %s: %v", method, path, err),
						RequestID: resp.Header.Get("X-Request-ID")}
				}
			}
			return r, nil
		}
	}
	return r, serviceError(resp, raw)
}

// serviceError maps an unsuccessful answer to an abx error. The HTTP status
// decides (abxerr.HTTPCode), not the body's code: the server sends code 0
// with HTTP 500 when it could not decode a request. Its error body is
// {"code", "message", "request_id"}.
func serviceError(resp *http.Response, raw []byte) error {
	body := abxerr.ParseHTTPBody(raw)
	e := abxerr.FromHTTP(resp.StatusCode, body.Message)
	e.RequestID = body.RequestID
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-ID")
	}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized:
		e.Hint = "check " + envPrefix + "API_KEY: the server refused it"
	case s == http.StatusForbidden:
		e.Hint = "the key may not do this, or a quota is reached"
	case s == http.StatusNotFound && body.JSON:
		e.Hint = "run 'abx list' to see the sandboxes that exist"
	case s == http.StatusNotFound || s == http.StatusMethodNotAllowed:
		// Plain-text 404/405 come from routes the server does not have.
		e.Code, e.Hint = abxerr.Rejected, "the server does not offer this route; check the domain, base URL and protocol"
	}
	return e
}

// statusOf is the HTTP status of a service error, 0 for other errors.
func statusOf(err error) int {
	var e *abxerr.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}
