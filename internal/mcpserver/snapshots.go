package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// SnapshotArgs are sandbox_snapshot's arguments.
type SnapshotArgs struct {
	SandboxID  string `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	TTLSeconds int    `json:"ttl_seconds,omitempty" jsonschema:"keep the snapshot this many seconds; 0 or none keeps it until deleted"`
}

// ForkArgs are sandbox_fork's arguments.
type ForkArgs struct {
	SandboxID      string `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	Count          int    `json:"count,omitempty" jsonschema:"how many clones to make, 1 to 50 (1 when none)"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"each clone's lifetime in seconds (the server's default, 300, when none)"`
}

// addSnapshotTools adds the tools that snapshot a sandbox and clone it. A
// pinned server may snapshot its sandbox; a fork makes sandboxes, which
// only an unpinned one does (sandbox.fork is a lifecycle operation).
func (s *server) addSnapshotTools(srv *mcp.Server) {
	add(s, srv, "sandbox.snapshot", &mcp.Tool{
		Name: "sandbox_snapshot",
		Description: "Take a snapshot of a running sandbox, which runs on: its files (and, on a cluster that keeps it, its memory) at this moment. " +
			"sandbox_create with the snapshot's ID as its template makes a clone of it.",
		Annotations: &mcp.ToolAnnotations{Title: "Snapshot a sandbox", DestructiveHint: ptr(false)},
	}, s.snapshot)
	add(s, srv, "sandbox.fork", &mcp.Tool{
		Name: "sandbox_fork",
		Description: "Clone a running sandbox: a snapshot that keeps it running, then count sandboxes made from it at once, each starting with its files. " +
			"A clone that cannot be made is reported with the others kept. Kill the clones with sandbox_kill when done.",
		Annotations: &mcp.ToolAnnotations{Title: "Fork a sandbox", DestructiveHint: ptr(false)},
	}, s.fork)
}

func (s *server) snapshot(ctx context.Context, _ *mcp.CallToolRequest, in SnapshotArgs) (*mcp.CallToolResult, *provider.Snapshot, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	snap, err := s.opts.Sandboxes.Snapshot(ctx, id, provider.SnapshotOptions{TTL: time.Duration(in.TTLSeconds) * time.Second})
	if err != nil {
		return nil, nil, s.fail(err)
	}
	return text("snapshot %s taken of sandbox %s", snap.SnapshotID, id), snap, nil
}

func (s *server) fork(ctx context.Context, _ *mcp.CallToolRequest, in ForkArgs) (*mcp.CallToolResult, *sandboxes.Forked, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	if in.Count == 0 {
		in.Count = 1
	}
	r, err := s.opts.Sandboxes.Fork(ctx, id, sandboxes.ForkRequest{Count: in.Count, Timeout: time.Duration(in.TimeoutSeconds) * time.Second})
	if err != nil {
		return nil, nil, s.fail(err)
	}
	ids := make([]string, len(r.Clones))
	for i, c := range r.Clones {
		ids[i] = c.SandboxID
	}
	msg := text("snapshot %s taken of %s; %d of %d clones made: %s", r.SnapshotID, id, len(r.Clones), in.Count, strings.Join(ids, ", "))
	if len(r.Failed) > 0 {
		msg.IsError = len(r.Clones) == 0
	}
	return msg, r, nil
}
