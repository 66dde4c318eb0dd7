package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetTimeoutArgs are sandbox_set_timeout's arguments.
type SetTimeoutArgs struct {
	SandboxID      string `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	TimeoutSeconds int    `json:"timeout_seconds" jsonschema:"the sandbox ends this many seconds from now; this replaces its deadline, shorter or longer"`
}

// ChangeResult is the structured result of sandbox_set_timeout,
// sandbox_pause and sandbox_resume: what the sandbox became, as
// the command line's timeout, pause and resume print it.
type ChangeResult struct {
	SandboxID string `json:"sandboxID"`
	State     string `json:"state,omitempty" jsonschema:"paused or running, after a pause or a resume"`
	Timeout   int64  `json:"timeout,omitempty" jsonschema:"seconds from now until the sandbox ends, after sandbox_set_timeout"`
}

func (s *server) addLifecycleTools(srv *mcp.Server) {
	add(s, srv, "sandbox.timeout", &mcp.Tool{
		Name:        "sandbox_set_timeout",
		Description: "Set a sandbox's deadline to timeout_seconds from now (it replaces the deadline: it can shorten it as well as extend it).",
		Annotations: &mcp.ToolAnnotations{Title: "Set a sandbox's timeout", DestructiveHint: ptr(false)},
	}, s.setTimeout)
	add(s, srv, "sandbox.pause", &mcp.Tool{
		Name:        "sandbox_pause",
		Description: "Pause a sandbox: its processes stop and its memory and files are kept until sandbox_resume. Pausing a paused sandbox succeeds.",
		Annotations: &mcp.ToolAnnotations{Title: "Pause a sandbox", DestructiveHint: ptr(false), IdempotentHint: true},
	}, s.pause)
	add(s, srv, "sandbox.resume", &mcp.Tool{
		Name:        "sandbox_resume",
		Description: "Resume a paused sandbox, which then lives for the server's default timeout (300 s). Resuming a running sandbox is refused by the server.",
		Annotations: &mcp.ToolAnnotations{Title: "Resume a sandbox", DestructiveHint: ptr(false)},
	}, s.resume)
}

func (s *server) setTimeout(ctx context.Context, _ *mcp.CallToolRequest, in SetTimeoutArgs) (*mcp.CallToolResult, *ChangeResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	if err := s.opts.Sandboxes.SetTimeout(ctx, id, time.Duration(in.TimeoutSeconds)*time.Second); err != nil {
		return nil, nil, s.fail(err)
	}
	return text("sandbox %s now ends in %d s", id, in.TimeoutSeconds), &ChangeResult{SandboxID: id, Timeout: int64(in.TimeoutSeconds)}, nil
}

func (s *server) pause(ctx context.Context, _ *mcp.CallToolRequest, in IDArgs) (*mcp.CallToolResult, *ChangeResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	if err := s.opts.Sandboxes.Pause(ctx, id); err != nil {
		return nil, nil, s.fail(err)
	}
	return text("sandbox %s paused", id), &ChangeResult{SandboxID: id, State: "paused"}, nil
}

func (s *server) resume(ctx context.Context, _ *mcp.CallToolRequest, in IDArgs) (*mcp.CallToolResult, *ChangeResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	if err := s.opts.Sandboxes.Resume(ctx, id, 0); err != nil {
		return nil, nil, s.fail(err)
	}
	return text("sandbox %s resumed", id), &ChangeResult{SandboxID: id, State: "running"}, nil
}
