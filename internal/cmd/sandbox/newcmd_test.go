package sandbox

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/provider"
	"github.com/abx-dev/abx/internal/sandboxes"
)

func TestNewCmdCreate(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "template", Argv: []string{"-t", "base"}, Want: createIn{Request: provider.CreateRequest{Template: "base"}}},
		{Name: "everything", Argv: []string{"--template", "ci", "--timeout", "1h", "--metadata", "a=b", "-e", "K=V=W", "--auto-pause", "--no-internet", "-q"}, Want: createIn{Request: provider.CreateRequest{Template: "ci", Timeout: time.Hour, Metadata: map[string]string{"a": "b"},
			Env: map[string]string{"K": "V=W"}, AutoPause: true, NoInternet: true}}},
		{Name: "days", Argv: []string{"-t", "b", "--timeout", "2d"}, Want: createIn{Request: provider.CreateRequest{Template: "b", Timeout: 48 * time.Hour}}},
		{Name: "bad metadata", Argv: []string{"-t", "b", "--metadata", "x"}, WantErr: "want KEY=VALUE"},
		{Name: "argument", Argv: []string{"-t", "b", "extra"}, WantErr: `create takes no arguments, got "extra"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdCreate(f, func(_ context.Context, o *CreateOptions) error {
			*got = createIn{Request: o.Request}
			return nil
		})
	})
}

type createIn struct {
	Request provider.CreateRequest
}

func TestNewCmdList(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "all", Argv: nil, Want: provider.ListOptions{}},
		{Name: "filters", Argv: []string{"--state", "running,PAUSED", "--state", "running", "--metadata", "o=ci", "--limit", "3"}, Want: provider.ListOptions{States: []string{"running", "PAUSED", "running"}, Metadata: map[string]string{"o": "ci"}, Limit: 3}},
		{Name: "zero limit", Argv: []string{"--limit", "0"}, WantErr: "invalid --limit 0"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdList(f, func(_ context.Context, o *ListOptions) error { *got = o.Filter; return nil })
	})
}

// idCases are what every command taking one sandbox ID accepts and refuses.
func idCases(extra ...string) []factorytest.ArgvCase {
	with := func(id string) []string { return append([]string{id}, extra...) }
	return []factorytest.ArgvCase{
		{Name: "id", Argv: with("sb-1"), Want: "sb-1"},
		{Name: "sandbox/ID, as -o name printed it before", Argv: with("sandbox/sb-1"), Want: "sb-1"},
		{Name: "empty", Argv: with(""), WantErr: `invalid sandbox ID ""`},
		{Name: "dot dot", Argv: with(".."), WantErr: `invalid sandbox ID ".."`},
		{Name: "slash", Argv: with("a/b"), WantErr: "invalid sandbox ID"},
		{Name: "newline", Argv: with("a\nb"), WantErr: "invalid sandbox ID"},
		{Name: "too long", Argv: with(strings.Repeat("x", 300)), WantErr: "invalid sandbox ID"},
	}
}

func TestNewCmdInfo(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, append(idCases(), factorytest.ArgvCase{Name: "none", Argv: nil, WantErr: "info needs ID"}),
		func(f *cmdutil.Factory, got *any) *cobra.Command {
			return NewCmdInfo(f, func(_ context.Context, o *InfoOptions) error { *got = o.ID; return nil })
		})
}

func TestNewCmdPause(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, idCases(), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPause(f, func(_ context.Context, o *PauseOptions) error { *got = o.ID; return nil })
	})
}

func TestNewCmdConnect(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, append(idCases(),
		factorytest.ArgvCase{Name: "timeout", Argv: []string{"sb", "--timeout", "90"}, Want: "sb 1m30s"},
		factorytest.ArgvCase{Name: "fraction", Argv: []string{"sb", "--timeout", "1ms"}, WantErr: "whole seconds"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdConnect(f, func(_ context.Context, o *ConnectOptions) error {
			*got = idLifetime(o.ID, o.Timeout)
			return nil
		})
	})
}

func TestNewCmdResume(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, append(idCases(),
		factorytest.ArgvCase{Name: "timeout", Argv: []string{"sb", "--timeout", "5m"}, Want: "sb 5m0s"},
		factorytest.ArgvCase{Name: "zero", Argv: []string{"sb", "--timeout", "0"}, WantErr: "must be between 1s and 30 days"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdResume(f, func(_ context.Context, o *ResumeOptions) error {
			*got = idLifetime(o.ID, o.Timeout)
			return nil
		})
	})
}

func TestNewCmdTimeout(t *testing.T) {
	t.Parallel()
	cases := idCases("1h")
	for i := range cases {
		if cases[i].Want != nil {
			cases[i].Want = cases[i].Want.(string) + " 1h0m0s"
		}
	}
	factorytest.Parse(t, append(cases,
		factorytest.ArgvCase{Name: "no duration", Argv: []string{"sb"}, WantErr: "timeout needs ID DURATION"},
		factorytest.ArgvCase{Name: "bad duration", Argv: []string{"sb", "forever"}, WantErr: `invalid DURATION "forever"`},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdTimeout(f, func(_ context.Context, o *TimeoutOptions) error {
			*got = o.ID + " " + o.Timeout.String()
			return nil
		})
	})
}

// url is built from its operation's declaration (cmdutil.NewCmdDeclared).
func TestNewCmdURL(t *testing.T) {
	t.Parallel()
	cases := idCases("8080")
	for i := range cases {
		if cases[i].Want != nil {
			cases[i].Want = cases[i].Want.(string) + ":8080"
		}
	}
	factorytest.Parse(t, append(cases,
		factorytest.ArgvCase{Name: "port word", Argv: []string{"sb", "http"}, WantErr: `invalid port "http"`},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return cmdutil.NewCmdDeclared(f, sandboxes.Op("sandbox.url"), func(_ context.Context, o *cmdutil.DeclaredOptions) error {
			*got = o.Values.Text("id") + ":" + strconv.FormatInt(o.Values.Number("port"), 10)
			return nil
		})
	})
}

func TestNewCmdKill(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "ids", Argv: []string{"a", "sandbox/b"}, Want: killIn{IDs: []string{"a", "b"}}},
		{Name: "all", Argv: []string{"--all", "--yes", "--state", "paused", "--metadata", "o=ci"}, Want: killIn{IDs: []string{}, All: true, Yes: true, Filter: provider.ListOptions{States: []string{"paused"}, Metadata: map[string]string{"o": "ci"}}}},
		{Name: "nothing", Argv: nil, WantErr: "kill needs sandbox IDs or --all"},
		{Name: "both", Argv: []string{"--all", "a"}, WantErr: "not both"},
		{Name: "filter without all", Argv: []string{"a", "--state", "paused"}, WantErr: "--state and --metadata filter --all"},
		{Name: "all piped without yes", Argv: []string{"--all"}, WantErr: "kill --all needs --yes"},
		{Name: "bad id", Argv: []string{"a", "../api"}, WantErr: "invalid sandbox ID"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdKill(f, func(_ context.Context, o *KillOptions) error {
			*got = killIn{IDs: o.IDs, All: o.All, Yes: o.Yes, Filter: o.Filter}
			return nil
		})
	})
}

type killIn struct {
	IDs      []string
	All, Yes bool
	Filter   provider.ListOptions
}

// idLifetime is what connect and resume were given, as the tables write it.
func idLifetime(id string, d time.Duration) string {
	if d > 0 {
		return id + " " + d.String()
	}
	return id
}

func TestNewCmdPortForward(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "one port", Argv: []string{"sb", "8080"}, Want: []Forward{{8080, 8080}}},
		{Name: "pairs", Argv: []string{"sb", "18080:8080", ":5432"}, Want: []Forward{{18080, 8080}, {0, 5432}}},
		{Name: "no port", Argv: []string{"sb"}, WantErr: "needs ID [LOCAL:]REMOTE"},
		// A REMOTE port's bounds are the operation's: it refuses 70000
		// before the sandbox is read (the root's tests hold it).
		{Name: "port beyond the range", Argv: []string{"sb", "70000"}, Want: []Forward{{70000, 70000}}},
		{Name: "port word", Argv: []string{"sb", "http"}, WantErr: `invalid port "http"`},
		{Name: "local port beyond the range", Argv: []string{"sb", "70000:8080"}, WantErr: `invalid local port "70000"`},
		{Name: "bad id", Argv: []string{"..", "8080"}, WantErr: "invalid sandbox ID"},
		// Whoever reaches envd or the code interpreter runs anything in the
		// sandbox: a forward would hand that to every process of this machine.
		{Name: "envd", Argv: []string{"sb", "49983"}, WantErr: "cannot forward port 49983: it is envd's"},
		{Name: "envd to another local port", Argv: []string{"sb", "8080", ":49983"}, WantErr: "cannot forward port 49983"},
		{Name: "interpreter", Argv: []string{"sb", "18000:49999"}, WantErr: "cannot forward port 49999: it is the code interpreter's"},
		{Name: "local port of envd's number", Argv: []string{"sb", "49983:8080"}, Want: []Forward{{49983, 8080}}},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPortForward(f, func(_ context.Context, o *PortForwardOptions) error { *got = o.Forwards; return nil })
	})
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "loopback by default", Argv: []string{"sb", "8080"}, Want: forwardIn{ID: "sb", Address: "127.0.0.1"}},
		{Name: "another address", Argv: []string{"sandbox/sb", "8080", "--address", "::1"}, Want: forwardIn{ID: "sb", Address: "::1"}},
		{Name: "localhost", Argv: []string{"sb", "8080", "--address", "localhost"}, Want: forwardIn{ID: "sb", Address: "localhost"}},
		{Name: "another name", Argv: []string{"sb", "8080", "--address", "example.com"}, WantErr: `invalid --address "example.com"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPortForward(f, func(_ context.Context, o *PortForwardOptions) error {
			*got = forwardIn{ID: o.ID, Address: o.Address}
			return nil
		})
	})
}

type forwardIn struct{ ID, Address string }

type metricsIn struct {
	IDs      []string
	All      bool
	Filter   provider.ListOptions
	Watch    bool
	Interval time.Duration
	Count    int
}

func TestNewCmdMetrics(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "ids", Argv: []string{"sb-1", "sandbox/sb-2"}, Want: metricsIn{IDs: []string{"sb-1", "sb-2"}, Interval: 2 * time.Second}},
		{Name: "all, filtered", Argv: []string{"--all", "--state", "running", "--metadata", "o=ci"},
			Want: metricsIn{IDs: []string{}, All: true, Filter: provider.ListOptions{States: []string{"running"}, Metadata: map[string]string{"o": "ci"}}, Interval: 2 * time.Second}},
		{Name: "watch", Argv: []string{"sb-1", "-w", "--interval", "5", "-n", "3"}, Want: metricsIn{IDs: []string{"sb-1"}, Watch: true, Interval: 5 * time.Second, Count: 3}},
		{Name: "nothing", Argv: nil, WantErr: "metrics needs sandbox IDs or --all"},
		{Name: "ids and all", Argv: []string{"sb-1", "--all"}, WantErr: "give sandbox IDs or --all, not both"},
		{Name: "a filter without all", Argv: []string{"sb-1", "--state", "running"}, WantErr: "--state and --metadata filter --all"},
		{Name: "interval without watch", Argv: []string{"sb-1", "--interval", "5s"}, WantErr: "--interval and --count go with --watch"},
		{Name: "too short an interval", Argv: []string{"sb-1", "-w", "--interval", "500ms"}, WantErr: `invalid --interval "500ms": must be between 1s and 24h`},
		{Name: "negative count", Argv: []string{"sb-1", "-w", "-n", "-1"}, WantErr: "invalid --count -1"},
		{Name: "bad id", Argv: []string{".."}, WantErr: "invalid sandbox ID"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdMetrics(f, func(_ context.Context, o *MetricsOptions) error {
			*got = metricsIn{IDs: o.IDs, All: o.All, Filter: o.Filter, Watch: o.Watch, Interval: o.Interval, Count: o.Count}
			return nil
		})
	})
}
