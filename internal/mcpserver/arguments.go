package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
)

// showBounds lists the tools with the schemas a host is shown (bounded):
// each argument's bounds as the catalogue declares them.
func (s *server) showBounds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.ListToolsResult); ok && r != nil {
			for i, t := range r.Tools {
				if shown, ok := s.shown[t.Name]; ok {
					c := *t
					c.InputSchema = shown
					r.Tools[i] = &c
				}
			}
		}
		return res, err
	}
}

// codeArguments gives the SDK's refusal of arguments its schema refuses
// (a string for a number, a property the tool does not have) the code of
// every refusal of input, E1002, as a tool's own errors have theirs: an
// agent reads one kind of error, whichever part refused the call.
func codeArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError && len(r.Content) == 1 {
			if t, ok := r.Content[0].(*mcp.TextContent); ok && strings.HasPrefix(t.Text, `validating "arguments": `) {
				t.Text = string(abxerr.InvalidInput) + ": invalid arguments: " + strings.TrimPrefix(t.Text, `validating "arguments": `) +
					" (see the tool's input schema)"
			}
		}
		return res, err
	}
}
