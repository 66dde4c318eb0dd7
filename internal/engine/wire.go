package engine

import (
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// sandbox hands a sandbox to a local client in E2B's shape: every word of
// the provider's redacted (its metadata may hold a key), and the engine's
// token in the sandbox's own tokens' place. The SDKs send the first to
// envd and /execute, the second to the interpreter's /contexts, which
// carry no other; the sandbox's own stay in abx.
func (e *Engine) sandbox(s *provider.Sandbox) e2bapi.Sandbox {
	md := make(map[string]string, len(s.Metadata))
	for k, v := range s.Metadata {
		if k != privateTrafficKey { // told as network.allowPublicTraffic
			md[e.redact(k)] = e.redact(v)
		}
	}
	return e2bapi.Sandbox{TemplateID: e.redact(s.TemplateID), Alias: e.redact(s.Alias), SandboxID: e.redact(s.SandboxID),
		ClientID: e.redact(clientID(s)), StartedAt: e2bapi.FormatTime(s.StartedAt), EndAt: e2bapi.FormatTime(s.EndAt),
		EnvdVersion: e.redact(s.EnvdVersion), EnvdAccessToken: e.token, TrafficAccessToken: e.token, Domain: e.domain,
		CPUCount: s.CPUCount, MemoryMB: s.MemoryMB, DiskSizeMB: s.DiskSizeMB, Metadata: md, State: e.redact(s.State),
		Network: e.redactNetwork(network(s))}
}

func clientID(s *provider.Sandbox) string {
	if s.ClientID != "" {
		return s.ClientID
	}
	return "abx"
}

// metric is a sample as E2B's SandboxMetric.
func metric(m *sandboxes.Figures) e2bapi.Metric {
	return e2bapi.Metric{Timestamp: m.Timestamp.UTC(), TimestampUnix: m.Timestamp.Unix(), CPUCount: m.CPUCount,
		CPUUsedPct: m.CPUUsedPct, MemUsed: m.MemUsed, MemTotal: m.MemTotal, MemCache: m.MemCache, DiskUsed: m.DiskUsed,
		DiskTotal: m.DiskTotal}
}

// redactNetwork redacts the rules' words, as every word of the provider's.
func (e *Engine) redactNetwork(n *e2bapi.Network) *e2bapi.Network {
	if n == nil {
		return nil
	}
	out := *n
	out.AllowOut, out.DenyOut = e.redactAll(n.AllowOut), e.redactAll(n.DenyOut)
	return &out
}

func (e *Engine) redactAll(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = e.redact(s)
	}
	return out
}
