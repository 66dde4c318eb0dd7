package codeinterp

import (
	"context"
	"net/url"
	"time"
)

// kernelStart is the least time given to calls that start a kernel
// (create, restart): a cold one can take longer than an API call.
const kernelStart = 2 * time.Minute

// Context is an interpreter with its own state: variables defined in one
// are not seen by another.
type Context struct {
	ID       string `json:"id"`
	Language string `json:"language"`
	Cwd      string `json:"cwd"`
}

// Contexts lists the sandbox's contexts, the default ones included.
func (c *Client) Contexts(ctx context.Context) ([]Context, error) {
	var out []Context
	if err := c.call(ctx, 0, "GET", "/contexts", nil, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = []Context{}
	}
	return out, nil
}

// CreateContext starts a context; "" leaves language (python) and cwd
// (/home/user) to the server.
func (c *Client) CreateContext(ctx context.Context, language, cwd string) (*Context, error) {
	body := struct {
		Language string `json:"language,omitempty"`
		Cwd      string `json:"cwd,omitempty"`
	}{language, cwd}
	var out Context
	if err := c.call(ctx, kernelStart, "POST", "/contexts", body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RestartContext restarts a context's kernel: its state is lost.
func (c *Client) RestartContext(ctx context.Context, id string) error {
	return c.call(ctx, kernelStart, "POST", "/contexts/"+url.PathEscape(id)+"/restart", nil, nil)
}

// DeleteContext stops a context for good.
func (c *Client) DeleteContext(ctx context.Context, id string) error {
	return c.call(ctx, 0, "DELETE", "/contexts/"+url.PathEscape(id), nil, nil)
}
