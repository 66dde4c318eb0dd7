//go:build unix

package emulator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/output"
)

var defaults = ServeOptions{Addr: "127.0.0.1:0", Templates: manager.DefaultTemplates, TimeScale: 1, Isolation: "auto"}

func TestNewCmdStart(t *testing.T) {
	t.Parallel()
	custom := ServeOptions{Addr: "127.0.0.1:8787", APIKey: "k", Templates: []string{"a", "b"}, StateDir: "/s", TimeScale: 30, Isolation: "none"}
	stateDir := defaults
	stateDir.StateDir = "/s"
	fromEnv := stateDir
	fromEnv.Isolation = "namespaces"
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "state dir", Argv: []string{"--state-dir", "/s"}, Want: stateDir},
		{Name: "everything", Argv: []string{"--addr", "127.0.0.1:8787", "--api-key", "k", "--templates", "a,b", "--state-dir", "/s", "--time-scale", "30", "--isolation", "none"}, Want: custom},
		{Name: "isolation from the environment", Argv: []string{"--state-dir", "/s"}, Env: map[string]string{"ABX_EMULATOR_ISOLATION": "namespaces"}, Want: fromEnv},
		{Name: "the flag beats the environment", Argv: []string{"--state-dir", "/s", "--isolation", "none"}, Env: map[string]string{"ABX_EMULATOR_ISOLATION": "namespaces"},
			Want: ServeOptions{Addr: defaults.Addr, Templates: defaults.Templates, StateDir: "/s", TimeScale: 1, Isolation: "none"}},
		{Name: "slow clock", Argv: []string{"--state-dir", "/s", "--time-scale", "0.5"}, WantErr: "invalid --time-scale 0.5"},
		{Name: "unknown isolation", Argv: []string{"--state-dir", "/s", "--isolation", "maybe"}, WantErr: `invalid --isolation "maybe"`},
		{Name: "argument", Argv: []string{"--state-dir", "/s", "now"}, WantErr: `start takes no arguments, got "now"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdStart(f, func(_ context.Context, o *StartOptions) error { *got = o.ServeOptions; return nil })
	})
}

func TestNewCmdExec(t *testing.T) {
	t.Parallel()
	type in struct {
		ServeOptions
		Argv []string
	}
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "command", Argv: []string{"--", "./x.sh", "-v"}, Want: in{defaults, []string{"./x.sh", "-v"}}},
		{Name: "faster", Argv: []string{"--time-scale", "60", "--", "true"}, Want: in{ServeOptions{Addr: defaults.Addr, Templates: defaults.Templates, TimeScale: 60, Isolation: "auto"}, []string{"true"}}},
		{Name: "no command", Argv: nil, WantErr: "needs a command to run after --"},
		{Name: "slow clock", Argv: []string{"--time-scale", "0", "--", "true"}, WantErr: "invalid --time-scale 0"},
		{Name: "traffic tokens of seconds", Argv: []string{"--traffic-token-validity", "30s", "--", "true"},
			Want: in{ServeOptions{Addr: defaults.Addr, Templates: defaults.Templates, TimeScale: 1, Isolation: "auto",
				TrafficTokens: "30s", trafficValidity: 30 * time.Second}, []string{"true"}}},
		{Name: "traffic tokens under a second", Argv: []string{"--traffic-token-validity", "500ms", "--", "true"},
			WantErr: `invalid --traffic-token-validity "500ms": must be 1s or more`},
		{Name: "traffic tokens of no duration", Argv: []string{"--traffic-token-validity", "soon", "--", "true"},
			WantErr: `invalid --traffic-token-validity "soon"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdExec(f, func(_ context.Context, o *ExecOptions) error { *got = in{o.ServeOptions, o.Argv}; return nil })
	})
}

func TestNewCmdEnv(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "state dir", Argv: []string{"--state-dir", "/s"}, Want: "/s"},
		{Name: "argument", Argv: []string{"x"}, WantErr: `env takes no arguments, got "x"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdEnv(f, func(_ context.Context, o *EnvOptions) error { *got = o.StateDir; return nil })
	})
}

// A running emulator's environment, as export lines and as JSON; none
// running is "not found".
func TestEnvPrintsTheRunningEmulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, s := factorytest.NewFactory(false, nil, output.JSON)
	err := runEnv(context.Background(), &EnvOptions{Printer: f.Printer, StateDir: dir})
	if err == nil || !strings.Contains(err.Error(), "no emulator is running with state dir") {
		t.Fatalf("nothing running: %v", err)
	}
	e, err := start(&ServeOptions{Addr: "127.0.0.1:0", Templates: []string{"base"}, StateDir: dir, TimeScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if err := runEnv(context.Background(), &EnvOptions{Printer: f.Printer, StateDir: dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Out.String(), `"ABX_ALICLOUD_CONTAINER_BASE_URL": "`+e.URL) {
		t.Errorf("JSON %q lacks the emulator's URL %s", s.Out, e.URL)
	}
	f, s = factorytest.NewFactory(false, nil, "")
	if err := runEnv(context.Background(), &EnvOptions{Printer: f.Printer, StateDir: dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Out.String(), "export ABX_PROVIDER=alicloud-container\n") {
		t.Errorf("export lines %q", s.Out)
	}
}

// A start that cannot be had says what to change: another --state-dir
// when another emulator serves the one given, another --addr when the
// address cannot be served, each without the other.
func TestStartHintsAtWhatToChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e, err := start(&ServeOptions{Addr: "127.0.0.1:0", Templates: []string{"base"}, StateDir: dir, TimeScale: 1, Isolation: "none"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	_, err = start(&ServeOptions{Addr: "127.0.0.1:0", Templates: []string{"base"}, StateDir: dir, TimeScale: 1, Isolation: "none"})
	if h := abxerr.From(err).Hint; !strings.Contains(h, "--state-dir") || strings.Contains(h, "--addr") {
		t.Errorf("state dir in use: %v; hint %q", err, h)
	}
	for _, addr := range []string{"0.0.0.0:0", "nonsense", strings.TrimPrefix(e.URL, "http://")} {
		_, err = start(&ServeOptions{Addr: addr, Templates: []string{"base"}, StateDir: t.TempDir(), TimeScale: 1, Isolation: "none"})
		if h := abxerr.From(err).Hint; !strings.Contains(h, "--addr") || strings.Contains(h, "--state-dir") {
			t.Errorf("address %s: %v; hint %q", addr, err, h)
		}
	}
}
