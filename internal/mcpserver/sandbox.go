package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/provider"
)

// CreateArgs are sandbox_create's arguments.
type CreateArgs struct {
	Template       string            `json:"template" jsonschema:"the template to start from, e.g. base or code-interpreter"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" jsonschema:"lifetime in seconds before the sandbox is killed (default: the server's, 300)"`
	Metadata       map[string]string `json:"metadata,omitempty" jsonschema:"metadata to attach, key to value"`
	Envs           map[string]string `json:"envs,omitempty" jsonschema:"environment variables for every process in the sandbox"`
}

// ListArgs are sandbox_list's arguments.
type ListArgs struct {
	State    string            `json:"state,omitempty" jsonschema:"only sandboxes in these states: running, paused (comma-separated; default: all)"`
	Metadata map[string]string `json:"metadata,omitempty" jsonschema:"only sandboxes whose metadata has all these pairs"`
}

// IDArgs are the arguments of a tool that takes a sandbox alone.
type IDArgs struct {
	SandboxID string `json:"sandbox_id" jsonschema:"the sandbox's ID, as sandbox_create or sandbox_list gives it"`
}

// ListResult is sandbox_list's structured result.
type ListResult struct {
	Sandboxes []provider.Sandbox `json:"sandboxes"`
}

// KillResult is sandbox_kill's structured result.
type KillResult struct {
	SandboxID string `json:"sandboxID"`
	Status    string `json:"status" jsonschema:"killed"`
}

func (s *server) addSandboxTools(srv *mcp.Server) {
	add(s, srv, "sandbox.create", &mcp.Tool{
		Name:        "sandbox_create",
		Description: "Create a sandbox from a template and return it (the fields of sandbox_info). Kill it with sandbox_kill when done; it is killed anyway when its timeout passes.",
		Annotations: &mcp.ToolAnnotations{Title: "Create a sandbox", DestructiveHint: ptr(false)},
	}, s.create)
	add(s, srv, "sandbox.list", &mcp.Tool{
		Name:        "sandbox_list",
		Description: "List the sandboxes, optionally by state and metadata.",
		Annotations: &mcp.ToolAnnotations{Title: "List sandboxes", ReadOnlyHint: true},
	}, s.list)
	add(s, srv, "sandbox.info", &mcp.Tool{
		Name:        "sandbox_info",
		Description: "Describe one sandbox: template, state, start and end times, resources, metadata.",
		Annotations: &mcp.ToolAnnotations{Title: "Describe a sandbox", ReadOnlyHint: true},
	}, s.info)
	add(s, srv, "sandbox.kill", &mcp.Tool{
		Name:        "sandbox_kill",
		Description: "Kill a sandbox: its processes and files are gone.",
		Annotations: &mcp.ToolAnnotations{Title: "Kill a sandbox", DestructiveHint: ptr(true), IdempotentHint: true},
	}, s.kill)
}

func (s *server) create(ctx context.Context, call *mcp.CallToolRequest, in CreateArgs) (*mcp.CallToolResult, *provider.Sandbox, error) {
	if err := s.opts.Ready(); err != nil {
		return nil, nil, s.fail(err)
	}
	req := provider.CreateRequest{Template: in.Template, Metadata: in.Metadata, Env: in.Envs,
		Timeout: time.Duration(in.TimeoutSeconds) * time.Second}
	// A cluster may take a while to schedule a sandbox; the host hears
	// that the call is alive. The limit is the provider's own.
	stop := heartbeat(ctx, call, s.opts.ProgressEvery, 0, nil)
	sb, err := s.opts.Sandboxes.Create(ctx, req)
	stop()
	if err != nil {
		return nil, nil, s.fail(err)
	}
	sb.Metadata = nonNil(sb.Metadata)
	return text("sandbox %s created from %s, ends %s", sb.SandboxID, sb.TemplateID, sb.EndAt.UTC().Format(time.RFC3339)), sb, nil
}

func (s *server) list(ctx context.Context, _ *mcp.CallToolRequest, in ListArgs) (*mcp.CallToolResult, *ListResult, error) {
	if err := s.opts.Ready(); err != nil {
		return nil, nil, s.fail(err)
	}
	opts := provider.ListOptions{Metadata: in.Metadata}
	if in.State != "" {
		opts.States = strings.Split(in.State, ",")
	}
	list, err := s.opts.Sandboxes.List(ctx, opts)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	out := &ListResult{Sandboxes: []provider.Sandbox{}}
	var b strings.Builder
	for _, sb := range list {
		sb.Metadata = nonNil(sb.Metadata)
		out.Sandboxes = append(out.Sandboxes, sb)
		b.WriteString(sb.SandboxID + " " + sb.TemplateID + " " + sb.State + " ends " + sb.EndAt.UTC().Format(time.RFC3339) + "\n")
	}
	if len(list) == 0 {
		return text("no sandboxes found"), out, nil
	}
	return text("%s:\n%s", human.Count(len(list), "sandbox", "sandboxes"), b.String()), out, nil
}

// sandboxID checks a sandbox_id argument. A pinned server's tools take
// none (their schemas refuse it); it answers the pinned sandbox.
func (s *server) sandboxID(id string) (string, error) {
	if err := s.opts.Ready(); err != nil {
		return "", err
	}
	if pinned := s.opts.Sandbox; pinned != "" {
		if id != "" && id != pinned {
			return "", abxerr.New(abxerr.InvalidInput, "this server is pinned to sandbox %s", pinned).
				WithHint("leave out sandbox_id")
		}
		return pinned, nil
	}
	return id, nil
}

func (s *server) info(ctx context.Context, _ *mcp.CallToolRequest, in IDArgs) (*mcp.CallToolResult, *provider.Sandbox, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	sb, err := s.opts.Sandboxes.Get(ctx, id)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	sb.Metadata = nonNil(sb.Metadata)
	return text("sandbox %s (%s) is %s, ends %s", sb.SandboxID, sb.TemplateID, sb.State, sb.EndAt.UTC().Format(time.RFC3339)), sb, nil
}

func (s *server) kill(ctx context.Context, _ *mcp.CallToolRequest, in IDArgs) (*mcp.CallToolResult, *KillResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	if err := s.opts.Sandboxes.Kill(ctx, id); err != nil {
		return nil, nil, s.fail(err)
	}
	return text("sandbox %s killed", id), &KillResult{SandboxID: id, Status: "killed"}, nil
}
