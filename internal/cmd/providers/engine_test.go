package providers

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

type serveIn struct {
	Addr        string
	AllowRemote bool
	PublicPorts []int
}

func TestNewCmdServe(t *testing.T) {
	t.Parallel()
	cases := []cmdtest.ArgvCase{
		{Name: "defaults", Argv: nil, Want: serveIn{Addr: "127.0.0.1:0"}},
		{Name: "public ports", Argv: []string{"--public-port", "3000", "--public-port", "8080,5173"},
			Want: serveIn{Addr: "127.0.0.1:0", PublicPorts: []int{3000, 8080, 5173}}},
		{Name: "envd's port", Argv: []string{"--public-port", "49983"}, WantErr: "invalid --public-port: port 49983 cannot be public"},
		{Name: "the interpreter's port", Argv: []string{"--public-port", "3000", "--public-port", "49999"},
			WantErr: "invalid --public-port: port 49999 cannot be public"},
		{Name: "out of range", Argv: []string{"--public-port", "70000"}, WantErr: "invalid --public-port: invalid public port 70000"},
		{Name: "zero", Argv: []string{"--public-port", "0"}, WantErr: "invalid public port 0"},
	}
	cmdtest.Parse(t, cases, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdServe(f, func(_ context.Context, o *ServeOptions) error {
			*got = serveIn{Addr: o.Addr, AllowRemote: o.AllowRemote, PublicPorts: o.PublicPorts}
			return nil
		})
	})
	exec := append([]cmdtest.ArgvCase(nil), cases[1:]...)
	for i := range exec {
		exec[i].Argv = append(append([]string(nil), exec[i].Argv...), "--", "node", "x.mjs")
	}
	cmdtest.Parse(t, exec, func(f *cmdutil.Factory, got *any) *cobra.Command {
		return NewCmdEngineExec(f, func(_ context.Context, o *EngineExecOptions) error {
			*got = serveIn{Addr: o.Addr, AllowRemote: o.AllowRemote, PublicPorts: o.PublicPorts}
			return nil
		})
	})
}
