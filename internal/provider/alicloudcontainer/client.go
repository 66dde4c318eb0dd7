package alicloudcontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// Client talks to the sandbox-manager's E2B-shaped API. It implements
// provider.Provider.
type Client struct {
	cfg  Config
	http *http.Client
	api  string
	// traffic holds the sources of guarded sandboxes' traffic tokens,
	// for as long as the client lives (traffic.go).
	traffic trafficTokens
	log     io.Writer // --debug's lines of the client's own (retries), or nil
	wrn     io.Writer // warnings for people, or nil
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
	return &Client{cfg: cfg, http: hc, api: cfg.APIBase(), log: deps.Log, wrn: deps.Warn}, nil
}

// warn tells people something about an answer that was used anyway.
func (c *Client) warn(format string, args ...any) {
	if c.wrn != nil {
		_, _ = fmt.Fprintf(c.wrn, "warning: "+format+"\n", args...)
	}
}

// maxBody caps an API answer: the largest real one, a page of 100
// sandboxes, is a few hundred KiB.
const maxBody = 8 << 20

// reply is what a call got back: the status and the headers worth keeping.
type reply struct {
	status    int
	nextToken string
}

// call sends one API request and decodes a JSON answer into out (when out
// is not nil: an empty body is then E5004). Any status outside ok is
// turned into an *abxerr.Error. The call, its retries included, has the
// configured request timeout. It is tried again as an idempotent call is
// (retry.go).
func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out any, ok ...int) (reply, error) {
	r, _, err := c.send(ctx, c.api, true, method, path, query, nil, in, out, ok)
	return r, err
}

// callOnce is call for a request that must not run twice, since each one
// the server acts on makes one more thing (a sandbox, a snapshot): it is
// tried again only when it never left this machine. unanswered says that
// it left and the connection broke before an answer: the thing may have
// been made, which the caller says in its words.
func (c *Client) callOnce(ctx context.Context, method, path string, query url.Values, in, out any, ok ...int) (r reply, unanswered bool, err error) {
	return c.send(ctx, c.api, false, method, path, query, nil, in, out, ok)
}

// callOnceWith is callOnce with headers of the request's own (the
// manager's extension parameters).
func (c *Client) callOnceWith(ctx context.Context, method, path string, headers http.Header, in, out any, ok ...int) (r reply, unanswered bool, err error) {
	return c.send(ctx, c.api, false, method, path, nil, headers, in, out, ok)
}

// send sends a request to base+path: base is the API's, or the prefix of
// the manager's own routes (ownRoutes).
func (c *Client) send(ctx context.Context, base string, idempotent bool, method, path string, query url.Values, headers http.Header, in, out any, ok []int) (reply, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()

	u := base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return reply{}, false, err
		}
		body = b
	}
	var last try
	r, err := c.withRetries(ctx, method, path, idempotent, func() try {
		last = c.attempt(ctx, method, path, u, headers, body, out, ok)
		return last
	})
	unanswered := err != nil && last.sent && last.status == 0 && ctx.Err() == nil && abxerr.From(err).Code == abxerr.Network
	return r, unanswered, err
}

// attempt sends the request once.
func (c *Client) attempt(ctx context.Context, method, path, u string, headers http.Header, body []byte, out any, ok []int) (t try) {
	// The transport writes the request on a goroutine of its own.
	var sent atomic.Bool
	defer func() { t.sent = sent.Load() }()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteHeaders: func() { sent.Store(true) }})
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		t.err = abxerr.New(abxerr.InvalidConfig, "cannot build a request to %s: %v", c.api, err)
		return t
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("X-API-Key", c.cfg.APIKey)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		t.err = abxerr.From(err)
		return t
	}
	defer func() { _ = resp.Body.Close() }()

	// Bodies of the control plane are small; cap them so a misrouted
	// request to a file server cannot fill memory.
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		t.err = abxerr.From(err)
		return t
	}
	t.reply = reply{status: resp.StatusCode, nextToken: resp.Header.Get("X-Next-Token")}
	if len(raw) > maxBody {
		t.err = &abxerr.Error{Code: abxerr.BadResponse, Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-ID"),
			Message: fmt.Sprintf("the answer to %s %s is larger than %d MiB; abx reads no more of it", method, path, maxBody>>20)}
		return t
	}
	for _, s := range ok {
		if resp.StatusCode == s {
			if out != nil && len(bytes.TrimSpace(raw)) == 0 {
				t.err = &abxerr.Error{Code: abxerr.BadResponse, Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-ID"),
					Message: fmt.Sprintf("the service answered %s %s with an empty body", method, path)}
				return t
			}
			if out != nil {
				if err := json.Unmarshal(raw, out); err != nil {
					t.err = &abxerr.Error{Code: abxerr.BadResponse, Cause: err, Status: resp.StatusCode,
						Message:   fmt.Sprintf("cannot read the answer to %s %s: %v", method, path, err),
						RequestID: resp.Header.Get("X-Request-ID")}
				}
			}
			return t
		}
	}
	e := serviceError(resp, raw)
	e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	t.err, t.retryAfter = e, e.RetryAfter
	return t
}

// serviceError maps an unsuccessful answer to an abx error. The HTTP status
// decides (abxerr.HTTPCode), not the body's code: the server sends code 0
// with HTTP 500 when it could not decode a request. Its error body is
// {"code", "message", "request_id"}.
func serviceError(resp *http.Response, raw []byte) *abxerr.Error {
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
		e.Next = abxerr.StepList
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
