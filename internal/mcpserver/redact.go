package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// redactAnswers passes every answer of the server through the redaction
// abx's printed output has (docs/mcp.md, "Secrets"): a result's text
// contents, an embedded text, its structured content and the message of
// an error. A server may echo the key in a list's metadata or an error,
// and a command may print a token; what a tool answers goes into a
// model's context, which a host may keep or send on. Binary contents
// (images, blobs) are left as they are.
func (s *server) redactAnswers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil {
			s.redactResult(r)
		}
		if err != nil {
			err = s.redactError(err)
		}
		return res, err
	}
}

func (s *server) redactResult(r *mcp.CallToolResult) {
	red := s.opts.Secrets.Redact
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			c.Text = red(c.Text)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				c.Resource.Text = red(c.Resource.Text)
			}
		}
	}
	switch v := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		r.StructuredContent = json.RawMessage(s.opts.Secrets.RedactJSON(v))
	default:
		if b, err := json.Marshal(v); err == nil {
			r.StructuredContent = json.RawMessage(s.opts.Secrets.RedactJSON(b))
		}
	}
}

// redactError keeps err as it is unless its words hold a secret.
func (s *server) redactError(err error) error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		if red := s.opts.Secrets.Redact(wire.Message); red != wire.Message {
			return &jsonrpc.Error{Code: wire.Code, Message: red, Data: s.opts.Secrets.RedactJSON(wire.Data)}
		}
		return err
	}
	if red := s.opts.Secrets.Redact(err.Error()); red != err.Error() {
		return errors.New(red)
	}
	return err
}
