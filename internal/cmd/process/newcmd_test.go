package process

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// argvCase is one command line and what it must become: the inputs the run
// function sees, or an error that says wantErr (before anything is sent).
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
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				if c := abxerr.From(err).Code; c[:2] != "E1" {
					t.Errorf("code %s, want a usage or input error (E1xxx)", c)
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

type execIn struct {
	ID, Cwd, User           string
	Argv                    []string
	Env                     map[string]string
	Timeout                 time.Duration
	Background, Interactive bool
}

func TestNewCmdExec(t *testing.T) {
	t.Parallel()
	parse(t, []argvCase{
		{"shell line", []string{"sb", "--", "echo hi | wc"}, execIn{ID: "sb", Argv: []string{"echo hi | wc"}}, ""},
		{"argv and flags", []string{"sandbox/sb", "-w", "/tmp", "-u", "root", "-e", "A=1", "--timeout", "30s", "-d", "-i", "--", "ls", "-l"},
			execIn{ID: "sb", Cwd: "/tmp", User: "root", Argv: []string{"ls", "-l"}, Env: map[string]string{"A": "1"},
				Timeout: 30 * time.Second, Background: true, Interactive: true}, ""},
		{"flags after --are the command's", []string{"sb", "--", "ls", "--timeout"}, execIn{ID: "sb", Argv: []string{"ls", "--timeout"}}, ""},
		{"no command", []string{"sb"}, nil, "needs a sandbox ID and a command"},
		{"no --", []string{"sb", "ls"}, nil, "put -- between the sandbox ID and the command"},
		{"bad id", []string{"..", "--", "ls"}, nil, `invalid sandbox ID ".."`},
		{"bad env", []string{"sb", "-e", "A", "--", "ls"}, nil, `invalid --env "A"`},
		{"bad timeout", []string{"sb", "--timeout", "soon", "--", "ls"}, nil, `invalid --timeout "soon"`},
		{"user with colon", []string{"sb", "-u", "a:b", "--", "ls"}, nil, `invalid --user "a:b"`},
		{"user with newline", []string{"sb", "-u", "a\nb", "--", "ls"}, nil, "invalid --user"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdExec(f, func(_ context.Context, o *ExecOptions) error {
			*got = execIn{ID: o.ID, Cwd: o.Cwd, User: o.User, Argv: o.Argv, Env: o.Env, Timeout: o.Timeout,
				Background: o.Background, Interactive: o.Interactive}
			return nil
		})
	})
}

func TestNewCmdPs(t *testing.T) {
	t.Parallel()
	parse(t, []argvCase{
		{"id", []string{"sb"}, "sb", ""},
		{"sandbox/ID", []string{"sandbox/sb"}, "sb", ""},
		{"none", nil, nil, "ps needs ID"},
		{"bad id", []string{"a/b"}, nil, "invalid sandbox ID"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return newCmdPsList(f, func(_ context.Context, o *PsOptions) error { *got = o.ID; return nil })
	})
}

type pidIn struct {
	ID  string
	PID uint32
	X   any
}

// pidCases are what every subcommand taking ID PID accepts and refuses.
func pidCases(want func(id string, pid uint32) any) []argvCase {
	return []argvCase{
		{"id pid", []string{"sb", "42"}, want("sb", 42), ""},
		{"sandbox/ID", []string{"sandbox/sb", "7"}, want("sb", 7), ""},
		{"pid zero", []string{"sb", "0"}, nil, `invalid PID "0"`},
		{"pid word", []string{"sb", "init"}, nil, `invalid PID "init"`},
		{"pid too big", []string{"sb", "4294967296"}, nil, "invalid PID"},
		{"bad id", []string{"", "1"}, nil, "invalid sandbox ID"},
	}
}

func TestNewCmdPsKill(t *testing.T) {
	t.Parallel()
	parse(t, append(pidCases(func(id string, pid uint32) any { return pidIn{id, pid, false} }),
		argvCase{"kill", []string{"sb", "1", "-s", "sigkill"}, pidIn{"sb", 1, true}, ""},
		argvCase{"nine", []string{"sb", "1", "--signal", "9"}, pidIn{"sb", 1, true}, ""},
		argvCase{"hup", []string{"sb", "1", "-s", "HUP"}, nil, `invalid --signal "HUP"`},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPsKill(f, func(_ context.Context, o *PsKillOptions) error { *got = pidIn{o.ID, o.PID, o.Kill}; return nil })
	})
}

func TestNewCmdPsStdin(t *testing.T) {
	t.Parallel()
	parse(t, append(pidCases(func(id string, pid uint32) any { return pidIn{id, pid, ""} }),
		argvCase{"data and close", []string{"sb", "1", "x\n", "--close"}, pidIn{"sb", 1, "x\n close"}, ""},
		argvCase{"too many", []string{"sb", "1", "a", "b"}, nil, "takes ID PID [DATA], got 4 arguments"},
		argvCase{"too few", []string{"sb"}, nil, "needs ID PID [DATA]"},
	), func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdPsStdin(f, func(_ context.Context, o *PsStdinOptions) error {
			x := string(o.Data)
			if o.Close {
				x += " close"
			}
			*got = pidIn{o.ID, o.PID, x}
			return nil
		})
	})
}

func TestNewCmdPsAttach(t *testing.T) {
	t.Parallel()
	parse(t, pidCases(func(id string, pid uint32) any { return pidIn{id, pid, nil} }),
		func(f *cmdutil.Factory, got *any) *cobra.Command {
			return NewCmdPsAttach(f, func(_ context.Context, o *PsAttachOptions) error { *got = pidIn{o.ID, o.PID, nil}; return nil })
		})
}
