package alicloudcontainer

import (
	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/e2bapi"
	"github.com/abx-dev/abx/internal/provider"
)

// wireSandbox is the server's Sandbox (e2bapi.Sandbox). Its tokens are
// secrets of the data plane: kept for Endpoint, never put in the model.
type wireSandbox e2bapi.Sandbox

// check refuses a sandbox the service described without its ID (an empty
// or null answer, a null in a list): nothing can be done with it, and
// printing it would show a blank where the ID belongs.
func (w *wireSandbox) check(method, path string) error {
	if w == nil || w.SandboxID == "" {
		return abxerr.New(abxerr.BadResponse, "the service answered %s %s with a sandbox without a sandboxID", method, path).
			WithHint("the service's answer is malformed; run again with --debug to see it")
	}
	return nil
}

func (w *wireSandbox) model() provider.Sandbox {
	md := w.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return provider.Sandbox{
		SandboxID:   w.SandboxID,
		TemplateID:  w.TemplateID,
		Alias:       w.Alias,
		ClientID:    w.ClientID,
		State:       w.State,
		StartedAt:   e2bapi.Time(w.StartedAt),
		EndAt:       e2bapi.Time(w.EndAt),
		CPUCount:    w.CPUCount,
		MemoryMB:    w.MemoryMB,
		DiskSizeMB:  w.DiskSizeMB,
		EnvdVersion: w.EnvdVersion,
		Domain:      w.Domain,
		Metadata:    md,
		Network:     network(w.Network),
	}
}

// network is the egress rules of a describe, nil for none.
func network(n *e2bapi.Network) *provider.Network {
	if n == nil || len(n.AllowOut)+len(n.DenyOut) == 0 {
		return nil
	}
	return &provider.Network{AllowOut: n.AllowOut, DenyOut: n.DenyOut}
}
