package providers

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/output"
)

func TestNewCmdList(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "nothing selected", Argv: nil, Want: ""},
		{Name: "selected by the environment", Env: map[string]string{"ABX_PROVIDER": "alicloud-container"}, Want: "alicloud-container"},
		{Name: "an argument", Argv: []string{"alicloud-container"}, WantErr: `list takes no arguments, got "alicloud-container"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdList(f, func(_ context.Context, o *ListOptions) error { *got = o.Selected; return nil })
	})
}

func TestNewCmdInfo(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "a provider", Argv: []string{"alicloud-container"}, Want: "alicloud-container"},
		{Name: "no name", Argv: nil, WantErr: "info needs NAME"},
		{Name: "unknown", Argv: []string{"nope"}, WantErr: `unknown provider "nope"`},
		{Name: "two names", Argv: []string{"a", "b"}, WantErr: "info takes NAME, got 2 arguments"},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdInfo(f, func(_ context.Context, o *InfoOptions) error { *got = o.Name; return nil })
	})
}

// Every format of both commands, against golden files; the API key's
// setting is marked secret and shows no value.
func TestShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		format output.Format
		tty    bool
	}{
		{"json", output.JSON, false}, {"piped", output.Table, false}, {"tty", output.Table, true}, {"name", output.Name, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, s := factorytest.NewFactory(tc.tty, map[string]string{"ABX_PROVIDER": "alicloud-container"}, tc.format)
			f.IO.Color = false
			if err := cmdtest.Exec(NewCmdList(f, nil)); err != nil {
				t.Fatal(err)
			}
			cmdtest.Golden(t, "list."+tc.name, s.Out.String())
			s.Out.Reset()
			if err := cmdtest.Exec(NewCmdInfo(f, nil), "alicloud-container"); err != nil {
				t.Fatal(err)
			}
			cmdtest.Golden(t, "info."+tc.name, s.Out.String())
			if tc.format == output.JSON && !strings.Contains(s.Out.String(), `"env": "ABX_ALICLOUD_CONTAINER_API_KEY",
      "secret": true`) {
				t.Errorf("the API key is not marked secret:\n%s", s.Out)
			}
		})
	}
}

// The Python SDK takes only e2b_<hex> keys; the engine makes its tokens so
// and warns of others.
func TestEngineTokensAreShapedAsE2BKeys(t *testing.T) {
	for token, want := range map[string]bool{
		newToken(): true, "e2b_0a1B": true, "e2b_": false, "tok-1": false, "e2b_xyz": false, "E2B_ff": true,
	} {
		if got := e2bKeyShaped(token); got != want {
			t.Errorf("%q: %v", token, got)
		}
	}
	if a, b := newToken(), newToken(); len(a) != 44 || a == b {
		t.Errorf("tokens: %s, %s", a, b)
	}
}
