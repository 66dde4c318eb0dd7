package providers

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/cmdutil"
)

type serveIn struct {
	Addr        string
	AllowRemote bool
	PublicPorts []int
}

func TestNewCmdServe(t *testing.T) {
	t.Parallel()
	cases := []factorytest.ArgvCase{
		{Name: "defaults", Argv: nil, Want: serveIn{Addr: "127.0.0.1:0"}},
		{Name: "public ports", Argv: []string{"--public-port", "3000", "--public-port", "8080,5173"},
			Want: serveIn{Addr: "127.0.0.1:0", PublicPorts: []int{3000, 8080, 5173}}},
		{Name: "envd's port", Argv: []string{"--public-port", "49983"}, WantErr: "invalid --public-port: port 49983 cannot be public"},
		{Name: "the interpreter's port", Argv: []string{"--public-port", "3000", "--public-port", "49999"},
			WantErr: "invalid --public-port: port 49999 cannot be public"},
		{Name: "out of range", Argv: []string{"--public-port", "70000"}, WantErr: `invalid --public-port 70000: must be between 1 and 65535`},
		{Name: "zero", Argv: []string{"--public-port", "0"}, WantErr: `invalid --public-port 0: must be between 1 and 65535`},
	}
	factorytest.Parse(t, cases, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdServe(f, func(_ context.Context, o *ServeOptions) error {
			*got = serveIn{Addr: o.Addr, AllowRemote: o.AllowRemote, PublicPorts: o.PublicPorts}
			return nil
		})
	})
	exec := append([]factorytest.ArgvCase(nil), cases[1:]...)
	for i := range exec {
		exec[i].Argv = append(append([]string(nil), exec[i].Argv...), "--", "node", "x.mjs")
	}
	factorytest.Parse(t, exec, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdEngineExec(f, func(_ context.Context, o *EngineExecOptions) error {
			*got = serveIn{Addr: o.Addr, AllowRemote: o.AllowRemote, PublicPorts: o.PublicPorts}
			return nil
		})
	})
}

type recordIn struct {
	Record, Token, Addr string
	AllowRemote         bool
}

// Where serve records itself, and the token it takes, come from the
// command line's environment: the state home, ABX_ENGINE_TOKEN.
func TestNewCmdServeReadsTheEnvironment(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "the state home", Argv: nil, Env: map[string]string{"XDG_STATE_HOME": "/state"},
			Want: recordIn{Record: "/state/abx/engine.json", Addr: "127.0.0.1:0"}},
		{Name: "the home", Argv: []string{"--addr", "0.0.0.0:8080", "--allow-remote"}, Env: map[string]string{"HOME": "/home/u"},
			Want: recordIn{Record: "/home/u/.local/state/abx/engine.json", Addr: "0.0.0.0:8080", AllowRemote: true}},
		{Name: "a relative state home is not one", Argv: nil, Env: map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"},
			Want: recordIn{Record: "/home/u/.local/state/abx/engine.json", Addr: "127.0.0.1:0"}},
		{Name: "the token's variable", Argv: nil, Env: map[string]string{"HOME": "/h", "ABX_ENGINE_TOKEN": "e2b_0123"},
			Want: recordIn{Record: "/h/.local/state/abx/engine.json", Token: "e2b_0123", Addr: "127.0.0.1:0"}},
		{Name: "the token's flag", Argv: []string{"--token", "e2b_42"}, Env: map[string]string{"HOME": "/h", "ABX_ENGINE_TOKEN": "e2b_0123"},
			Want: recordIn{Record: "/h/.local/state/abx/engine.json", Token: "e2b_42", Addr: "127.0.0.1:0"}},
		{Name: "an argument", Argv: []string{"now"}, WantErr: `serve takes no arguments, got "now"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdServe(f, func(_ context.Context, o *ServeOptions) error {
			*got = recordIn{Record: o.Record, Token: o.Token, Addr: o.Addr, AllowRemote: o.AllowRemote}
			return nil
		})
	})
}

func TestNewCmdEngineEnv(t *testing.T) {
	t.Parallel()
	factorytest.Parse(t, []factorytest.ArgvCase{
		{Name: "the state home", Argv: nil, Env: map[string]string{"XDG_STATE_HOME": "/state"}, Want: "/state/abx/engine.json"},
		{Name: "the home", Argv: nil, Env: map[string]string{"HOME": "/home/u"}, Want: "/home/u/.local/state/abx/engine.json"},
		{Name: "an argument", Argv: []string{"x"}, WantErr: `env takes no arguments, got "x"`},
	}, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdEngineEnv(f, func(_ context.Context, o *EnvOptions) error { *got = o.Record; return nil })
	})
}
