package sandbox

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/provider"
)

// argvCase is one command line and what it must become: the Options's
// inputs, or a usage or input error that says wantErr.
type argvCase struct {
	name    string
	argv    []string
	want    any // the inputs the run function sees
	wantErr string
}

// parse runs each case through build, capturing what reaches the run
// function through inputs.
func parse(t *testing.T, cases []argvCase, build func(f *cmdutil.Factory, got *any) *cobra.Command) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got any
			err := cmdtest.Exec(build(f, &got), tc.argv...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				if code := abxerr.From(err).ExitCode(); code != abxerr.ExitUsage {
					t.Errorf("exit %d, want 2", code)
				}
				if got != nil {
					t.Errorf("ran with %+v after an error", got)
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

func TestNewCmdCreate(t *testing.T) {
	t.Parallel()
	parse(t, []argvCase{
		{"template", []string{"-t", "base"}, createIn{Request: provider.CreateRequest{Template: "base"}}, ""},
		{"everything", []string{"--template", "ci", "--timeout", "1h", "--metadata", "a=b", "-e", "K=V=W", "--auto-pause", "--no-internet", "-q"},
			createIn{Request: provider.CreateRequest{Template: "ci", Timeout: time.Hour, Metadata: map[string]string{"a": "b"},
				Env: map[string]string{"K": "V=W"}, AutoPause: true, NoInternet: true}, Quiet: true}, ""},
		{"days", []string{"-t", "b", "--timeout", "2d"}, createIn{Request: provider.CreateRequest{Template: "b", Timeout: 48 * time.Hour}}, ""},
		{"no template", nil, nil, "--template is required"},
		{"short timeout", []string{"-t", "b", "--timeout", "10s"}, nil, "between 30s and 30 days"},
		{"bad metadata", []string{"-t", "b", "--metadata", "x"}, nil, "want KEY=VALUE"},
		{"argument", []string{"-t", "b", "extra"}, nil, "takes , got 1 arguments"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdCreate(f, func(_ context.Context, o *CreateOptions) error {
			*got = createIn{Request: o.Request, Quiet: o.Quiet}
			return nil
		})
	})
}

type createIn struct {
	Request provider.CreateRequest
	Quiet   bool
}

func TestNewCmdList(t *testing.T) {
	t.Parallel()
	parse(t, []argvCase{
		{"all", nil, provider.ListOptions{}, ""},
		{"filters", []string{"--state", "running,PAUSED", "--state", "running", "--metadata", "o=ci", "--limit", "3"},
			provider.ListOptions{States: []string{"running", "paused"}, Metadata: map[string]string{"o": "ci"}, Limit: 3}, ""},
		{"bad state", []string{"--state", "asleep"}, nil, `invalid --state "asleep"`},
		{"zero limit", []string{"--limit", "0"}, nil, "invalid --limit 0"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdList(f, func(_ context.Context, o *ListOptions) error { *got = o.Filter; return nil })
	})
}

// idCases are what every command taking one sandbox ID accepts and refuses.
func idCases(extra ...string) []argvCase {
	with := func(id string) []string { return append([]string{id}, extra...) }
	return []argvCase{
		{"id", with("sb-1"), "sb-1", ""},
		{"sandbox/ID, as -o name printed it before", with("sandbox/sb-1"), "sb-1", ""},
		{"empty", with(""), nil, `invalid sandbox ID ""`},
		{"dot dot", with(".."), nil, `invalid sandbox ID ".."`},
		{"slash", with("a/b"), nil, "invalid sandbox ID"},
		{"newline", with("a\nb"), nil, "invalid sandbox ID"},
		{"too long", with(strings.Repeat("x", 300)), nil, "invalid sandbox ID"},
	}
}

func TestNewCmdInfo(t *testing.T) {
	t.Parallel()
	parse(t, append(idCases(), argvCase{"none", nil, nil, "info needs ID"}),
		func(f *cmdutil.Factory, got *any) *cobra.Command {
			return NewCmdInfo(f, func(_ context.Context, o *InfoOptions) error { *got = o.ID; return nil })
		})
}

func TestNewCmdPause(t *testing.T) {
	t.Parallel()
	parse(t, idCases(), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPause(f, func(_ context.Context, o *PauseOptions) error { *got = o.ID; return nil })
	})
}

func TestNewCmdConnect(t *testing.T) {
	t.Parallel()
	parse(t, append(idCases(),
		argvCase{"timeout", []string{"sb", "--timeout", "90"}, "sb 1m30s", ""},
		argvCase{"fraction", []string{"sb", "--timeout", "1ms"}, nil, "whole seconds"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdConnect(f, func(_ context.Context, o *ConnectOptions) error {
			*got = o.ID
			if o.Timeout > 0 {
				*got = o.ID + " " + o.Timeout.String()
			}
			return nil
		})
	})
}

func TestNewCmdResume(t *testing.T) {
	t.Parallel()
	parse(t, append(idCases(),
		argvCase{"timeout", []string{"sb", "--timeout", "5m"}, "sb 5m0s", ""},
		argvCase{"zero", []string{"sb", "--timeout", "0"}, nil, "not a duration"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdResume(f, func(_ context.Context, o *ResumeOptions) error {
			*got = o.ID
			if o.Timeout > 0 {
				*got = o.ID + " " + o.Timeout.String()
			}
			return nil
		})
	})
}

func TestNewCmdTimeout(t *testing.T) {
	t.Parallel()
	cases := idCases("1h")
	for i := range cases {
		if cases[i].want != nil {
			cases[i].want = cases[i].want.(string) + " 1h0m0s"
		}
	}
	parse(t, append(cases,
		argvCase{"no duration", []string{"sb"}, nil, "timeout needs ID DURATION"},
		argvCase{"bad duration", []string{"sb", "forever"}, nil, `invalid DURATION "forever"`},
		argvCase{"31 days", []string{"sb", "31d"}, nil, "between 1s and 30 days"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdTimeout(f, func(_ context.Context, o *TimeoutOptions) error {
			*got = o.ID + " " + o.Timeout.String()
			return nil
		})
	})
}

func TestNewCmdURL(t *testing.T) {
	t.Parallel()
	cases := idCases("8080")
	for i := range cases {
		if cases[i].want != nil {
			cases[i].want = cases[i].want.(string) + ":8080"
		}
	}
	parse(t, append(cases,
		argvCase{"port zero", []string{"sb", "0"}, nil, `invalid port "0"`},
		argvCase{"port word", []string{"sb", "http"}, nil, `invalid port "http"`},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdURL(f, func(_ context.Context, o *URLOptions) error {
			*got = o.ID + ":" + strconv.Itoa(o.Port)
			return nil
		})
	})
}

func TestNewCmdKill(t *testing.T) {
	t.Parallel()
	parse(t, []argvCase{
		{"ids", []string{"a", "sandbox/b"}, killIn{IDs: []string{"a", "b"}}, ""},
		{"all", []string{"--all", "--yes", "--state", "paused", "--metadata", "o=ci"},
			killIn{IDs: []string{}, All: true, Yes: true, Filter: provider.ListOptions{States: []string{"paused"}, Metadata: map[string]string{"o": "ci"}}}, ""},
		{"nothing", nil, nil, "kill needs sandbox IDs or --all"},
		{"both", []string{"--all", "a"}, nil, "not both"},
		{"filter without all", []string{"a", "--state", "paused"}, nil, "--state and --metadata filter --all"},
		{"all piped without yes", []string{"--all"}, nil, "kill --all needs --yes"},
		{"bad id", []string{"a", "../api"}, nil, "invalid sandbox ID"},
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
