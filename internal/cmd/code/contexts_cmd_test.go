package code

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// argvCase is one row of the TestNewCmdContextsX tables: argv and what it
// becomes, or the error it is refused with.
type argvCase[T any] struct {
	name    string
	argv    []string
	want    T
	wantErr string
}

// checkArgv runs each case through the command newCmd builds, with a runF
// that keeps the options; strip clears what argv does not set.
func checkArgv[T any](t *testing.T, cases []argvCase[T],
	newCmd func(*cmdutil.Factory, func(context.Context, *T) error) *cobra.Command, strip func(*T)) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, _ := cmdtest.NewFactory(false, nil, "")
			var got *T
			err := cmdtest.Exec(newCmd(f, func(_ context.Context, o *T) error {
				got = o
				return nil
			}), tt.argv...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				if got != nil {
					t.Error("the command ran despite the error")
				}
				if exit := abxerr.Exit(err, false); exit != abxerr.ExitUsage {
					t.Errorf("exit %d, want 2", exit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			strip(got)
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestNewCmdContextsList(t *testing.T) {
	t.Parallel()
	checkArgv(t, []argvCase[ContextsListOptions]{
		{name: "ID", argv: []string{"sb-1"}, want: ContextsListOptions{ID: "sb-1"}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1"}, want: ContextsListOptions{ID: "sb-1"}},
		{name: "no ID", argv: []string{}, wantErr: "list needs ID"},
		{name: "two IDs", argv: []string{"sb-1", "sb-2"}, wantErr: "list takes ID, got 2 arguments"},
		{name: "bad ID", argv: []string{"../x"}, wantErr: `invalid sandbox ID "../x"`},
	}, NewCmdContextsList, func(o *ContextsListOptions) { o.Printer, o.Interp = nil, nil })
}

func TestNewCmdContextsCreate(t *testing.T) {
	t.Parallel()
	checkArgv(t, []argvCase[ContextsCreateOptions]{
		{name: "defaults", argv: []string{"sb-1"}, want: ContextsCreateOptions{ID: "sb-1"}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1"}, want: ContextsCreateOptions{ID: "sb-1"}},
		{name: "language and cwd", argv: []string{"sb-1", "--language", "python", "--cwd", "/home/user/p"},
			want: ContextsCreateOptions{ID: "sb-1", Language: "python", Cwd: "/home/user/p"}},
		{name: "language alias", argv: []string{"sb-1", "-l", "ts"}, want: ContextsCreateOptions{ID: "sb-1", Language: "typescript"}},
		{name: "bad language", argv: []string{"sb-1", "-l", "x"}, wantErr: `unknown --language "x"`},
		{name: "empty language", argv: []string{"sb-1", "-l", ""}, wantErr: `unknown --language ""`},
		{name: "no ID", argv: []string{}, wantErr: "create needs ID"},
		{name: "bad ID", argv: []string{""}, wantErr: `invalid sandbox ID ""`},
	}, NewCmdContextsCreate, func(o *ContextsCreateOptions) { o.Printer, o.Interp = nil, nil })
}

func TestNewCmdContextsRestart(t *testing.T) {
	t.Parallel()
	checkArgv(t, []argvCase[ContextsRestartOptions]{
		{name: "ID and context", argv: []string{"sb-1", "ctx-1"}, want: ContextsRestartOptions{ID: "sb-1", ContextID: "ctx-1"}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1", "ctx-1"}, want: ContextsRestartOptions{ID: "sb-1", ContextID: "ctx-1"}},
		{name: "no context", argv: []string{"sb-1"}, wantErr: "restart needs ID CONTEXT"},
		{name: "three args", argv: []string{"sb-1", "c", "d"}, wantErr: "restart takes ID CONTEXT, got 3 arguments"},
		{name: "bad sandbox ID", argv: []string{"a b", "ctx-1"}, wantErr: `invalid sandbox ID "a b"`},
		{name: "context with a slash", argv: []string{"sb-1", "../../sandboxes"}, wantErr: `invalid context ID "../../sandboxes"`},
		{name: "dot context", argv: []string{"sb-1", ".."}, wantErr: `invalid context ID ".."`},
		{name: "blank context", argv: []string{"sb-1", " "}, wantErr: `invalid context ID " "`},
	}, NewCmdContextsRestart, func(o *ContextsRestartOptions) { o.Printer, o.Interp = nil, nil })
}

func TestNewCmdContextsDelete(t *testing.T) {
	t.Parallel()
	checkArgv(t, []argvCase[ContextsDeleteOptions]{
		{name: "ID and context", argv: []string{"sb-1", "ctx-1"}, want: ContextsDeleteOptions{ID: "sb-1", ContextID: "ctx-1"}},
		{name: "sandbox/ID", argv: []string{"sandbox/sb-1", "ctx-1"}, want: ContextsDeleteOptions{ID: "sb-1", ContextID: "ctx-1"}},
		{name: "no context", argv: []string{"sb-1"}, wantErr: "delete needs ID CONTEXT"},
		{name: "bad sandbox ID", argv: []string{"a/b", "ctx-1"}, wantErr: `invalid sandbox ID "a/b"`},
		{name: "bad context", argv: []string{"sb-1", "a\\b"}, wantErr: `invalid context ID "a\\b"`},
		{name: "empty context", argv: []string{"sb-1", ""}, wantErr: `invalid context ID ""`},
	}, NewCmdContextsDelete, func(o *ContextsDeleteOptions) { o.Printer, o.Interp = nil, nil })
}

// TestContextIDHint: a refused context ID says where the good ones are.
func TestContextIDHint(t *testing.T) {
	t.Parallel()
	f, _ := cmdtest.NewFactory(false, nil, "")
	err := cmdtest.Exec(NewCmdContextsDelete(f, nil), "sb-1", "a/b")
	if e := abxerr.From(err); e.Code != abxerr.InvalidInput || e.Hint != "pass a context ID as shown by 'abx run-code contexts list sb-1'" {
		t.Errorf("code %s, hint %q", e.Code, e.Hint)
	}
}
