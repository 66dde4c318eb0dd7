package sandbox

import (
	"maps"
	"slices"
	"strconv"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// How sandboxes look in every format; list, info, create and connect share it.

// printSandboxes prints a list: a table, a wide table, IDs, or JSON ([]
// when empty).
func printSandboxes(io *output.Streams, p *output.Printer, list []provider.Sandbox) error {
	if list == nil {
		list = []provider.Sandbox{}
	}
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.SandboxID
	}
	return p.Print(list, ids, func() error {
		if len(list) == 0 {
			p.Note("no sandboxes found")
			return nil
		}
		t := p.Table("sandbox id", "template", "state", "started", "ends").
			WithWide(false, "cpu", "memory mb", "envd", "metadata")
		for _, s := range list {
			t.Row(s.SandboxID, s.TemplateID, io.State(s.State), io.Time(s.StartedAt), io.Time(s.EndAt),
				strconv.Itoa(s.CPUCount), strconv.Itoa(s.MemoryMB), output.Dash(s.EnvdVersion), output.Dash(output.Pairs(s.Metadata)))
		}
		return t.Render()
	})
}

// printSandbox prints one sandbox: field/value rows for people, the object
// (asJSON) for programs.
func printSandbox(io *output.Streams, p *output.Printer, s *provider.Sandbox, asJSON any) error {
	return p.Print(asJSON, []string{s.SandboxID}, func() error {
		t := p.Table("field", "value")
		t.Row("sandbox id", s.SandboxID)
		t.Row("template", s.TemplateID)
		t.Row("state", io.State(s.State))
		t.Row("started", io.Time(s.StartedAt))
		t.Row("ends", io.Time(s.EndAt))
		t.Row("cpu", strconv.Itoa(s.CPUCount))
		t.Row("memory mb", strconv.Itoa(s.MemoryMB))
		if s.DiskSizeMB > 0 {
			t.Row("disk mb", strconv.Itoa(s.DiskSizeMB))
		}
		t.Row("envd", output.Dash(s.EnvdVersion))
		t.Row("domain", output.Dash(s.Domain))
		if s.Alias != "" {
			t.Row("alias", s.Alias)
		}
		for _, kv := range slices.Sorted(maps.Keys(s.Metadata)) {
			t.Row("metadata", kv+"="+s.Metadata[kv])
		}
		return t.Render()
	})
}
