package cli

import (
	"fmt"
	"strconv"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

// How sandboxes look in every format; list, info, create and connect share it.

// printSandboxes prints a list: a table, a wide table, names, or JSON ([]
// when empty).
func printSandboxes(io *output.Streams, format output.Format, list []provider.Sandbox) error {
	switch format {
	case output.JSON:
		if list == nil {
			list = []provider.Sandbox{}
		}
		return output.WriteJSON(io.Out, list)
	case output.Name:
		for _, s := range list {
			if _, err := fmt.Fprintln(io.Out, "sandbox/"+s.SandboxID); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(io.ErrOut, "no sandboxes found")
		return err
	}
	switch format {
	case output.Wide:
		t := io.NewTable("sandbox id", "template", "state", "started", "ends", "cpu", "memory mb", "envd", "metadata")
		for _, s := range list {
			t.Row(s.SandboxID, s.TemplateID, io.State(s.State), io.Time(s.StartedAt), io.Time(s.EndAt),
				strconv.Itoa(s.CPUCount), strconv.Itoa(s.MemoryMB), dash(s.EnvdVersion), dash(sortedPairs(s.Metadata)))
		}
		return t.Render()
	default:
		t := io.NewTable("sandbox id", "template", "state", "started", "ends")
		for _, s := range list {
			t.Row(s.SandboxID, s.TemplateID, io.State(s.State), io.Time(s.StartedAt), io.Time(s.EndAt))
		}
		return t.Render()
	}
}

// printSandbox prints one sandbox: field/value rows for people, the object
// for programs.
func printSandbox(io *output.Streams, format output.Format, s *provider.Sandbox, asJSON any) error {
	switch format {
	case output.JSON:
		return output.WriteJSON(io.Out, asJSON)
	case output.Name:
		_, err := fmt.Fprintln(io.Out, "sandbox/"+s.SandboxID)
		return err
	}
	t := io.NewTable("field", "value")
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
	t.Row("envd", dash(s.EnvdVersion))
	t.Row("domain", dash(s.Domain))
	if s.Alias != "" {
		t.Row("alias", s.Alias)
	}
	for _, kv := range sortedKeys(s.Metadata) {
		t.Row("metadata", kv+"="+s.Metadata[kv])
	}
	return t.Render()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
