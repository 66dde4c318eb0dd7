//go:build unix

package emulator

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

type argvCase struct {
	name    string
	argv    []string
	want    any
	wantErr string
}

func parse(t *testing.T, cases []argvCase, build func(f *cmdutil.Factory, got *any) *cobra.Command) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got any
			err := cmdtest.Exec(build(f, &got), tc.argv...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || got != nil {
					t.Fatalf("error %v (ran: %v), want one saying %q", err, got != nil, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

var defaults = ServeOptions{Addr: "127.0.0.1:0", Templates: []string{"base", "code-interpreter"}, TimeScale: 1}

func TestNewCmdStart(t *testing.T) {
	t.Parallel()
	custom := ServeOptions{Addr: "127.0.0.1:8787", APIKey: "k", Templates: []string{"a", "b"}, StateDir: "/s", TimeScale: 30}
	parse(t, []argvCase{
		{"state dir", []string{"--state-dir", "/s"}, ServeOptions{Addr: defaults.Addr, Templates: defaults.Templates, StateDir: "/s", TimeScale: 1}, ""},
		{"everything", []string{"--addr", "127.0.0.1:8787", "--api-key", "k", "--templates", "a,b", "--state-dir", "/s", "--time-scale", "30"}, custom, ""},
		{"slow clock", []string{"--state-dir", "/s", "--time-scale", "0.5"}, nil, "invalid --time-scale 0.5"},
		{"argument", []string{"--state-dir", "/s", "now"}, nil, "start takes , got 1 arguments"},
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
	parse(t, []argvCase{
		{"command", []string{"--", "./x.sh", "-v"}, in{defaults, []string{"./x.sh", "-v"}}, ""},
		{"faster", []string{"--time-scale", "60", "--", "true"}, in{ServeOptions{Addr: defaults.Addr, Templates: defaults.Templates, TimeScale: 60}, []string{"true"}}, ""},
		{"no command", nil, nil, "needs a command to run after --"},
		{"slow clock", []string{"--time-scale", "0", "--", "true"}, nil, "invalid --time-scale 0"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdExec(f, func(_ context.Context, o *ExecOptions) error { *got = in{o.ServeOptions, o.Argv}; return nil })
	})
}

func TestNewCmdEnv(t *testing.T) {
	t.Parallel()
	parse(t, []argvCase{
		{"state dir", []string{"--state-dir", "/s"}, "/s", ""},
		{"argument", []string{"x"}, nil, "env takes , got 1 arguments"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdEnv(f, func(_ context.Context, o *EnvOptions) error { *got = o.StateDir; return nil })
	})
}

// A running emulator's environment, as export lines and as JSON; none
// running is "not found".
func TestEnvPrintsTheRunningEmulator(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, s := cmdtest.NewFactory(false, nil, output.JSON)
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
	f, s = cmdtest.NewFactory(false, nil, "")
	if err := runEnv(context.Background(), &EnvOptions{Printer: f.Printer, StateDir: dir}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Out.String(), "export ABX_PROVIDER=alicloud-container\n") {
		t.Errorf("export lines %q", s.Out)
	}
}
