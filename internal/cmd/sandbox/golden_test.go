//go:build unix

package sandbox

import (
	"context"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// stub is a provider with fixed answers, for pinning how results print.
// What no test here calls is the embedded nil's, which panics.
type stub struct {
	provider.Provider
	sandboxes []provider.Sandbox
	killErr   map[string]error
}

var (
	t0 = time.Date(2026, 1, 2, 15, 0, 5, 0, time.UTC)
	sb = provider.Sandbox{
		SandboxID: "default--code-interpreter-x7k2p", TemplateID: "code-interpreter", State: "running",
		StartedAt: t0, EndAt: t0.Add(10 * time.Minute), CPUCount: 2, MemoryMB: 2048, DiskSizeMB: 10240,
		EnvdVersion: "0.2.10", Domain: "agents.example.com",
		Metadata: map[string]string{"e2b.agents.kruise.io/sandbox-resource": "sandboxset/code-interpreter", "owner": "ci"},
	}
	paused = provider.Sandbox{
		SandboxID: "default--base-b2c4d", TemplateID: "base", State: "paused",
		StartedAt: t0.Add(-2 * time.Hour), EndAt: t0.Add(100 * 365 * 24 * time.Hour), CPUCount: 1, MemoryMB: 512,
		Metadata: map[string]string{},
	}
)

func (s *stub) Create(context.Context, provider.CreateRequest) (*provider.Sandbox, error) {
	return &sb, nil
}
func (s *stub) Connect(context.Context, string, time.Duration) (*provider.ConnectResult, error) {
	return &provider.ConnectResult{Sandbox: sb, Resumed: true}, nil
}
func (s *stub) Get(context.Context, string) (*provider.Sandbox, error) { return &sb, nil }
func (s *stub) List(context.Context, provider.ListOptions) ([]provider.Sandbox, error) {
	return s.sandboxes, nil
}
func (s *stub) Kill(_ context.Context, id string) error                 { return s.killErr[id] }
func (s *stub) SetTimeout(context.Context, string, time.Duration) error { return nil }
func (s *stub) Resume(context.Context, string, time.Duration) error     { return nil }
func (s *stub) PortURL(id string, _ int) (string, error) {
	return "https://8080-" + id + ".agents.example.com", nil
}

// TestOutputShapes pins every command's output in JSON, piped table, TTY
// table and names.
func TestOutputShapes(t *testing.T) {
	t.Parallel()
	p := &stub{sandboxes: []provider.Sandbox{sb, paused}}
	formats := []struct {
		name   string
		format output.Format
		tty    bool
	}{
		{"json", output.JSON, false},
		{"piped", output.Table, false},
		{"tty", output.Table, true},
		{"wide-tty", output.Wide, true},
		{"name", output.Name, false},
	}
	ctx := context.Background()
	commands := []struct {
		name string
		run  func(*cmdutil.Factory) error
	}{
		{"list", func(f *cmdutil.Factory) error {
			return runList(ctx, &ListOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p)})
		}},
		{"list-empty", func(f *cmdutil.Factory) error {
			return runList(ctx, &ListOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(&stub{})})
		}},
		{"info", func(f *cmdutil.Factory) error {
			return runInfo(ctx, &InfoOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p), ID: sb.SandboxID})
		}},
		{"create", func(f *cmdutil.Factory) error {
			return runCreate(ctx, &CreateOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p), Request: provider.CreateRequest{Template: "base"}})
		}},
		{"connect", func(f *cmdutil.Factory) error {
			return runConnect(ctx, &ConnectOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p), ID: sb.SandboxID})
		}},
		{"resume", func(f *cmdutil.Factory) error {
			return runResume(ctx, &ResumeOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p), ID: sb.SandboxID})
		}},
		{"kill", func(f *cmdutil.Factory) error {
			return runKill(ctx, &KillOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p), IDs: []string{sb.SandboxID, paused.SandboxID}})
		}},
		{"url", func(f *cmdutil.Factory) error {
			return cmdutil.RunDeclared(ctx, &cmdutil.DeclaredOptions{Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(p),
				Operation: sandboxes.Op("sandbox.url"), Values: sandboxes.Values{"id": sb.SandboxID, "port": int64(8080)}})
		}},
	}
	for _, c := range commands {
		for _, fm := range formats {
			t.Run(c.name+"/"+fm.name, func(t *testing.T) {
				t.Parallel()
				f, s := factorytest.NewFactory(fm.tty, nil, fm.format)
				f.IO.Color = false
				if err := c.run(f); err != nil {
					t.Fatal(err)
				}
				cmdtest.Golden(t, c.name+"."+fm.name, s.Out.String()+stderrSection(s.ErrOut.String()))
			})
		}
	}
}

func stderrSection(s string) string {
	if s == "" {
		return ""
	}
	return "--- stderr\n" + s
}

func TestChangeShapes(t *testing.T) {
	t.Parallel()
	for _, fm := range []output.Format{output.JSON, output.Table, output.Name} {
		f, s := factorytest.NewFactory(false, nil, fm)
		opts := &TimeoutOptions{IO: f.IO, Printer: f.Printer, Sandboxes: cmdtest.Sandboxes(&stub{}), ID: "sb1", Timeout: time.Hour}
		if err := runTimeout(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		cmdtest.Golden(t, "timeout."+string(fm), s.Out.String()+stderrSection(s.ErrOut.String()))
	}
}
