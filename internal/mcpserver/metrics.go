package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

func (s *server) addMetricsTool(srv *mcp.Server) {
	add(s, srv, "sandbox.metrics", &mcp.Tool{
		Name: "sandbox_metrics",
		Description: "A sample of a sandbox's CPU, memory and disk use, as envd measures them inside it: CPUs, percent " +
			"of them in use since the previous sample, memory and disk used and total in bytes. A paused sandbox has none.",
		Annotations: &mcp.ToolAnnotations{Title: "A sandbox's resource use", ReadOnlyHint: true},
	}, s.metrics)
}

func (s *server) metrics(ctx context.Context, _ *mcp.CallToolRequest, in IDArgs) (*mcp.CallToolResult, *sandboxes.Sample, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	samples, err := s.opts.Sandboxes.Sample(ctx, sandboxes.Target{ID: id})
	if err != nil {
		return nil, nil, s.fail(err)
	}
	sm := samples[0]
	switch {
	case sm.State == sandboxes.Paused:
		return nil, nil, s.fail(provider.PausedError(id))
	case sm.Err != nil:
		return nil, nil, s.fail(sm.Err)
	}
	f := sm.Figures
	return text("sandbox %s at %s: %d CPUs, %.1f%% in use; memory %s of %s; disk %s of %s", id,
		f.Timestamp.UTC().Format("15:04:05Z"), f.CPUCount, f.CPUUsedPct,
		human.Bytes(f.MemUsed), human.Bytes(f.MemTotal), human.Bytes(f.DiskUsed), human.Bytes(f.DiskTotal)), &sm, nil
}
