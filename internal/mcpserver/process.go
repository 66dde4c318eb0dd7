package mcpserver

import (
	"context"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/human"
)

// ProcessKillArgs are process_kill's arguments.
type ProcessKillArgs struct {
	SandboxID string `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	PID       uint32 `json:"pid" jsonschema:"the process's pid, as process_list or exec's background start gives it"`
	Signal    string `json:"signal,omitempty" jsonschema:"TERM (default) or KILL: envd delivers these two only"`
}

// ProcessListResult is process_list's structured result.
type ProcessListResult struct {
	Processes []envd.Process `json:"processes" jsonschema:"the processes envd runs"`
}

// ProcessKillResult is process_kill's structured result.
type ProcessKillResult struct {
	PID    uint32 `json:"pid"`
	Signal string `json:"signal" jsonschema:"SIGTERM or SIGKILL"`
}

func (s *server) addProcessTools(srv *mcp.Server) {
	add(s, srv, "process.list", &mcp.Tool{
		Name: "process_list",
		Description: "List the processes envd runs in a sandbox: pid, tag, command and arguments, cwd " +
			"(a command started by exec shows as its shell line).",
		Annotations: &mcp.ToolAnnotations{Title: "List a sandbox's processes", ReadOnlyHint: true},
	}, s.processList)
	add(s, srv, "process.signal", &mcp.Tool{
		Name: "process_kill",
		Description: "Send SIGTERM (default) or SIGKILL to a process of a sandbox. A command started by exec " +
			"gets it with its whole process group.",
		Annotations: &mcp.ToolAnnotations{Title: "Signal a process", DestructiveHint: ptr(true), IdempotentHint: true},
	}, s.processKill)
}

func (s *server) processList(ctx context.Context, _ *mcp.CallToolRequest, in IDArgs) (*mcp.CallToolResult, *ProcessListResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	list, err := s.opts.Sandboxes.Processes(ctx, id)
	if err != nil {
		return nil, nil, s.failIn(id, err)
	}
	out := &ProcessListResult{Processes: []envd.Process{}}
	var b strings.Builder
	for _, p := range list {
		if p.Args == nil {
			p.Args = []string{}
		}
		out.Processes = append(out.Processes, p)
		b.WriteString(strconv.FormatUint(uint64(p.PID), 10) + " " + strings.Join(append([]string{p.Cmd}, p.Args...), " ") + "\n")
	}
	if len(list) == 0 {
		return text("no processes"), out, nil
	}
	return text("%s (pid command):\n%s", human.Count(len(list), "process", "processes"), b.String()), out, nil
}

func (s *server) processKill(ctx context.Context, _ *mcp.CallToolRequest, in ProcessKillArgs) (*mcp.CallToolResult, *ProcessKillResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	sig, err := s.opts.Sandboxes.Signal(ctx, id, in.PID, in.Signal)
	if err != nil {
		return nil, nil, s.failIn(id, err)
	}
	return text("process %d sent %s", in.PID, sig), &ProcessKillResult{PID: in.PID, Signal: sig}, nil
}
