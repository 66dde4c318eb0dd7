package sandboxes

import (
	"context"

	"github.com/abx-dev/abx/internal/provider"
)

// sandbox.url, declared whole, beside its function: its command, its tool
// and their words come from this declaration alone.
var _ = declare(&Operation{Name: "sandbox.url", Capability: provider.PortsURL, Func: "PortURL", ReadOnly: true,
	Inputs: []Input{positional(idInput, "the sandbox's ID"), positional(portInput, "the port in the sandbox")},
	Door: &Door{Group: "sandboxes", Use: "url ID PORT",
		Short: "Print the public URL of a port of a sandbox",
		Long: `Print the URL at which PORT of a sandbox is reached through the gateway. It is computed
from the configuration (domain, protocol, base URL) without any request.`,
		Example: `  abx url "$id" 8080
  curl "$(abx url "$id" 8080)/health"`,
		Tool:    "sandbox_url",
		ToolDoc: "The public URL of a port of a sandbox, through the gateway. Computed from the configuration, without a request.",
		Title:   "URL of a sandbox's port",
		Result:  (*PortAddress)(nil),
		Line:    func(r any) string { return r.(*PortAddress).URL },
	},
	Call: func(ctx context.Context, s *Service, in Values) (any, error) {
		u, err := s.PortURL(ctx, in.Text("id"), int(in.Number("port")))
		if err != nil {
			return nil, err
		}
		return &PortAddress{SandboxID: in.Text("id"), Port: int(in.Number("port")), URL: u}, nil
	}})

// PortAddress is where a port of a sandbox is reached (sandbox.url).
type PortAddress struct {
	SandboxID string `json:"sandboxID"`
	Port      int    `json:"port"`
	URL       string `json:"url" jsonschema:"where the port is reached through the gateway"`
}

// PortURL is the URL of a port of the sandbox, computed without a request.
func (s *Service) PortURL(ctx context.Context, id string, port int) (string, error) {
	op := Op("sandbox.url")
	p, err := s.on(ctx, op, id)
	if err != nil {
		return "", err
	}
	if err := op.Input("port").CheckNumber(ctx, int64(port)); err != nil {
		return "", err
	}
	return p.PortURL(id, port)
}
