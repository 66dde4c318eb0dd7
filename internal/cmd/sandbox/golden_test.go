//go:build unix

package cli

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/provider"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// stub is a provider with fixed answers, for pinning how results print.
type stub struct {
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
func (s *stub) Pause(context.Context, string) error                     { return nil }
func (s *stub) Resume(context.Context, string, time.Duration) error     { return nil }
func (s *stub) PortURL(id string, _ int) (string, error) {
	return "https://8080-" + id + ".agents.example.com", nil
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func stubOpener(p provider.Provider) func() (provider.Provider, error) {
	return func() (provider.Provider, error) { return p, nil }
}

// TestOutputShapes pins every command's output in JSON, piped table, TTY
// table and names.
func TestOutputShapes(t *testing.T) {
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
	commands := []struct {
		name string
		run  func(io *output.Streams, f output.Format) error
	}{
		{"list", func(io *output.Streams, f output.Format) error {
			return runList(context.Background(), &ListOptions{IO: io, Provider: stubOpener(p), Format: f})
		}},
		{"list-empty", func(io *output.Streams, f output.Format) error {
			return runList(context.Background(), &ListOptions{IO: io, Provider: stubOpener(&stub{}), Format: f})
		}},
		{"info", func(io *output.Streams, f output.Format) error {
			return runInfo(context.Background(), &InfoOptions{IO: io, Provider: stubOpener(p), Format: f, ID: sb.SandboxID})
		}},
		{"create", func(io *output.Streams, f output.Format) error {
			return runCreate(context.Background(), &CreateOptions{IO: io, Provider: stubOpener(p), Format: f})
		}},
		{"connect", func(io *output.Streams, f output.Format) error {
			return runConnect(context.Background(), &ConnectOptions{IO: io, Provider: stubOpener(p), Format: f, ID: sb.SandboxID})
		}},
		{"kill", func(io *output.Streams, f output.Format) error {
			return runKill(context.Background(), &KillOptions{IO: io, Provider: stubOpener(p), Format: f, IDs: []string{sb.SandboxID, paused.SandboxID}})
		}},
		{"url", func(io *output.Streams, f output.Format) error {
			return runURL(&URLOptions{IO: io, Provider: stubOpener(p), Format: f, ID: sb.SandboxID, Port: 8080})
		}},
		{"capabilities", func(io *output.Streams, f output.Format) error {
			return printCapabilities(io, f, NewFactory(io).Registry.All()[0])
		}},
	}
	for _, c := range commands {
		for _, fm := range formats {
			t.Run(c.name+"/"+fm.name, func(t *testing.T) {
				io, _, out, errOut := output.Test(fm.tty)
				io.Color = false
				if err := c.run(io, fm.format); err != nil {
					t.Fatal(err)
				}
				golden(t, c.name+"."+fm.name, out.String()+stderrSection(errOut.String()))
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

func TestActionShapes(t *testing.T) {
	p := &stub{}
	for _, tc := range []struct {
		name string
		cmd  func(*Factory) error
	}{
		{"timeout", func(f *Factory) error {
			return runAction(context.Background(), &ActionOptions{IO: f.IO, Provider: stubOpener(p), Format: f.Format, ID: "sb1"}, nil,
				action{do: func(ctx context.Context, p provider.Provider) error { return p.SetTimeout(ctx, "sb1", time.Hour) },
					result: actionResult{SandboxID: "sb1", Timeout: 3600}, note: "sandbox sb1 now ends in 1h"})
		}},
	} {
		for _, fm := range []output.Format{output.JSON, output.Table, output.Name} {
			io, _, out, errOut := output.Test(false)
			f := &Factory{IO: io, Format: fm}
			if err := tc.cmd(f); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+"."+string(fm), out.String()+stderrSection(errOut.String()))
		}
	}
}

func TestErrorShapes(t *testing.T) {
	e := abxerr.New(abxerr.NotFound, "Sandbox route not found, maybe it is crashed or killed: sb1 (HTTP 404)").
		WithHint("run 'abx list' to see the sandboxes that exist")
	e.RequestID, e.Status = "0123456789abcdef0123456789abcdef", 404
	io, _, _, errOut := output.Test(false)
	io.PrintError(e, true)
	io.PrintError(e, false)
	golden(t, "error", errOut.String())
	if strings.Count(errOut.String(), "\n") != 2 {
		t.Errorf("each form is one line: %q", errOut.String())
	}
}
