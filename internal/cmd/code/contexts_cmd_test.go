package code

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
)

func TestNewCmdContextsList(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "ID", Argv: []string{"sb-1"}, Want: "sb-1"},
		{Name: "sandbox/ID", Argv: []string{"sandbox/sb-1"}, Want: "sb-1"},
		{Name: "no ID", Argv: []string{}, WantErr: "list needs ID"},
		{Name: "two IDs", Argv: []string{"sb-1", "sb-2"}, WantErr: "list takes ID, got 2 arguments"},
		{Name: "bad ID", Argv: []string{"../x"}, WantErr: `invalid sandbox ID "../x"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdContextsList(f, func(_ context.Context, o *ContextsListOptions) error { *got = o.ID; return nil })
	})
}

// createIn is what argv makes of ContextsCreateOptions.
type createIn struct{ ID, Language, Cwd string }

func TestNewCmdContextsCreate(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "defaults", Argv: []string{"sb-1"}, Want: createIn{ID: "sb-1"}},
		{Name: "sandbox/ID", Argv: []string{"sandbox/sb-1"}, Want: createIn{ID: "sb-1"}},
		{Name: "language and cwd", Argv: []string{"sb-1", "--language", "python", "--cwd", "/home/user/p"},
			Want: createIn{ID: "sb-1", Language: "python", Cwd: "/home/user/p"}},
		// The operation reads an alias as its language, and refuses one it
		// does not know (TestContextsRefusals).
		{Name: "language alias", Argv: []string{"sb-1", "-l", "ts"}, Want: createIn{ID: "sb-1", Language: "ts"}},
		{Name: "unknown language", Argv: []string{"sb-1", "-l", "x"}, Want: createIn{ID: "sb-1", Language: "x"}},
		{Name: "empty language", Argv: []string{"sb-1", "-l", ""}, WantErr: `invalid --language "": it is empty`},
		{Name: "no ID", Argv: []string{}, WantErr: "create needs ID"},
		{Name: "bad ID", Argv: []string{""}, WantErr: `invalid sandbox ID ""`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdContextsCreate(f, func(_ context.Context, o *ContextsCreateOptions) error {
			*got = createIn{ID: o.ID, Language: o.Language, Cwd: o.Cwd}
			return nil
		})
	})
}

// TestNewCmdContextsChange: restart and delete take the same arguments.
func TestNewCmdContextsChange(t *testing.T) {
	t.Parallel()
	for name, newCmd := range map[string]func(*cmdutil.Factory, func(context.Context, *ContextsChangeOptions) error) *cobra.Command{
		"restart": NewCmdContextsRestart, "delete": NewCmdContextsDelete,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			factorytest.Parse(t, []factorytest.ArgvCase{
				{Name: "ID and context", Argv: []string{"sb-1", "ctx-1"}, Want: "sb-1 ctx-1"},
				{Name: "sandbox/ID", Argv: []string{"sandbox/sb-1", "ctx-1"}, Want: "sb-1 ctx-1"},
				{Name: "no context", Argv: []string{"sb-1"}, WantErr: name + " needs ID CONTEXT"},
				{Name: "three args", Argv: []string{"sb-1", "c", "d"}, WantErr: name + " takes ID CONTEXT, got 3 arguments"},
				{Name: "bad sandbox ID", Argv: []string{"a b", "ctx-1"}, WantErr: `invalid sandbox ID "a b"`},
				{Name: "sandbox ID with a slash", Argv: []string{"a/b", "ctx-1"}, WantErr: `invalid sandbox ID "a/b"`},
				// The context ID is the operation's to check (TestContextsRefusals).
				{Name: "any context", Argv: []string{"sb-1", "../x"}, Want: "sb-1 ../x"},
			}, func(f *cmdutil.Factory, got *any) *cobra.Command {
				return newCmd(f, func(_ context.Context, o *ContextsChangeOptions) error { *got = o.ID + " " + o.ContextID; return nil })
			})
		})
	}
}
