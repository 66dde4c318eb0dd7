package engine

import (
	"maps"

	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// Network settings as E2B's clients give them, and which of a sandbox's
// ports the engine serves without its token (docs/engine.md, "Which
// ports are public").

// privateTrafficKey marks, among a sandbox's metadata, one created through
// the engine with network.allowPublicTraffic false: its ports need the
// engine's token, as E2B's need the sandbox's traffic token. Kept with the
// sandbox, not in the engine, so that it holds for any engine that serves
// the sandbox later; hidden from the metadata the engine shows, and told
// as E2B tells it (network.allowPublicTraffic).
const privateTrafficKey = "abx.dev/allow-public-traffic"

// createNetwork puts a create's network settings into req: egress rules
// for the provider (which refuses them if it cannot apply them), and the
// mark of a sandbox whose ports are not public.
func createNetwork(req *provider.CreateRequest, n *e2bapi.Network) {
	if n == nil {
		return
	}
	if len(n.AllowOut)+len(n.DenyOut) > 0 { // empty lists are no rules, which any provider can keep
		req.Network = &provider.Network{AllowOut: n.AllowOut, DenyOut: n.DenyOut}
	}
	if n.AllowPublicTraffic != nil && !*n.AllowPublicTraffic {
		md := maps.Clone(req.Metadata)
		if md == nil {
			md = map[string]string{}
		}
		md[privateTrafficKey] = "false"
		req.Metadata = md
	}
}

// network is a sandbox's network settings as E2B answers them: its egress
// rules and whether its ports are public. nil for a sandbox with neither
// rules nor the mark, as E2B's clients read a missing network as the
// defaults.
func network(s *provider.Sandbox) *e2bapi.Network {
	private := s.Metadata[privateTrafficKey] == "false"
	if s.Network == nil && !private {
		return nil
	}
	public := !private
	n := &e2bapi.Network{AllowPublicTraffic: &public}
	if s.Network != nil {
		n.AllowOut, n.DenyOut = s.Network.AllowOut, s.Network.DenyOut
	}
	return n
}

// open tells whether a request without the engine's token may reach the
// port of ep: one that runs nothing it is asked (not envd's or the code
// interpreter's) of a sandbox whose traffic nobody guards (no traffic
// token on the cluster, not created private through the engine). On a
// cluster such a port is reachable by anyone who reaches the gateway:
// the engine's token would protect nothing there and would break E2B's
// common way of reaching a sandbox's server (getHost, then a plain fetch).
func open(ep *provider.Endpoint) bool {
	return !ep.Privileged && ep.Renewing == nil && ep.Metadata[privateTrafficKey] != "false"
}
