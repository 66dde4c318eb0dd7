// Package codeinterp is abx's client of the code interpreter's HTTP front
// inside a sandbox (port 49999; docs/protocol.md, "The code interpreter"):
// POST /execute read as newline-delimited JSON while it arrives, and the
// contexts endpoints. Like the envd client it is built from the endpoint a
// provider hands over and never sees the API key.
package codeinterp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Endpoint is what the client needs: the base URL of port 49999 and the
// headers of every request (routing, access tokens).
type Endpoint struct {
	URL    string
	Header http.Header
	// Timeout is the deadline of each contexts call; 0 for none. /execute
	// has none: code runs as long as it runs (see Execute).
	Timeout time.Duration
	// MaxLine bounds the reply lines of /execute; 0 for MaxLine.
	MaxLine int
}

// Client talks to one sandbox's code interpreter.
type Client struct {
	base    string
	header  http.Header
	http    *http.Client
	timeout time.Duration
	// maxLine and maxHeld are MaxLine and MaxHeld; tests lower them.
	maxLine, maxHeld int
}

// New builds a client over hc.
func New(hc *http.Client, ep Endpoint) *Client {
	h := ep.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	// The API key belongs to the control plane only.
	h.Del("X-API-Key")
	h.Set("User-Agent", "abx")
	c := &Client{base: strings.TrimRight(ep.URL, "/"), header: h, http: hc, timeout: ep.Timeout, maxLine: MaxLine, maxHeld: MaxHeld}
	if ep.MaxLine > 0 {
		c.maxLine = ep.MaxLine
	}
	return c
}

// send makes one request with the client's headers and a JSON body (nil for
// none), and returns the response when its status is 200.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidConfig, "bad code interpreter URL: %v", err)
	}
	req.Header = c.header.Clone()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, abxerr.From(err)
	}
	if resp.StatusCode != http.StatusOK {
		defer func() { _ = resp.Body.Close() }()
		return nil, statusError(resp)
	}
	return resp, nil
}

// call sends a request with the client's deadline (never less than least,
// when there is one) and decodes a JSON reply into out (nil to discard).
func (c *Client) call(ctx context.Context, least time.Duration, method, path string, body, out any) error {
	if d := max(c.timeout, least); c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	// Replies to the contexts calls are small; a huge one is not read whole.
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(out); err != nil {
		return abxerr.New(abxerr.BadResponse, "cannot read the code interpreter's reply to %s %s: %v", method, path, err)
	}
	return nil
}

// statusError maps the front's errors, which are plain text ("Context x not
// found"), to abx's codes (abxerr.HTTPCode) and adds the hints of its own.
func statusError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := abxerr.FromHTTP(resp.StatusCode, string(raw))
	e.Message = "code interpreter: " + e.Message
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		e.Hint = "the sandbox refused its access token; if it was recreated, the token changed"
	case http.StatusBadGateway:
		// The gateway's answer when nothing listens on 49999: a paused
		// sandbox, or a template without the code interpreter.
		e.Hint = "is the sandbox paused, or made from a template without the code interpreter?"
	}
	return e
}
