//go:build unix

// Package emulator holds `abx emulator`: start, exec and env, the commands
// that run abx's local stand-in for a cluster.
package emulator

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/manager"
	"github.com/abx-dev/abx/internal/localserver"
)

// NewCmdEmulator builds `abx emulator`.
func NewCmdEmulator(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   emulatorNames.Use(""),
		Short: "Run a local sandbox-manager, so abx works without a cluster",
		Long: `Run a local stand-in for the sandbox-manager API, its gateway, and each sandbox's
envd and code interpreter, on one loopback address: to try abx and to test scripts
that use it. It speaks the same HTTP as the real service (both path sets, the API key,
errors, pages, pause and resume, timeouts that expire).

Sandboxes run commands and code as your user on this machine, without isolation; each
has a directory of its own, and the files API stays inside it (docs/emulator.md).`,
		Example: `  abx emulator exec -- ./examples/quickstart.sh
  abx emulator start          # then, in another shell: eval "$(abx emulator env)"`,
	}
	cmd.AddCommand(NewCmdStart(f, nil), NewCmdExec(f, nil), NewCmdEnv(f, nil))
	return cmdutil.NoProvider(cmd)
}

// ServeOptions are what start and exec share: how the emulator serves.
type ServeOptions struct {
	Addr      string
	APIKey    string
	Templates []string
	StateDir  string
	TimeScale float64
	Isolation string
	// TrafficTokens is --traffic-token-validity as typed; trafficValidity
	// is what it reads as.
	TrafficTokens   string
	trafficValidity time.Duration
}

// isolationEnv sets --isolation's default, so that a CI job or a machine
// without user namespaces can choose once.
const isolationEnv = "ABX_EMULATOR_ISOLATION"

func (o *ServeOptions) addFlags(c *cobra.Command, getenv func(string) string, stateDirHelp string) {
	fl := c.Flags()
	isolation := getenv(isolationEnv)
	if isolation == "" {
		isolation = emulator.IsolationAuto
	}
	fl.StringVar(&o.Isolation, "isolation", isolation, "auto, namespaces (required) or none: whether each sandbox's processes get a view of their own (default from $"+isolationEnv+")")
	fl.StringVar(&o.Addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	fl.StringSliceVar(&o.Templates, "templates", manager.DefaultTemplates, "templates sandboxes can be created from (code-interpreter* ones get the interpreter)")
	fl.StringVar(&o.StateDir, "state-dir", "", stateDirHelp)
	fl.Float64Var(&o.TimeScale, "time-scale", 1, "for tests: run the sandboxes' clock this many times faster (30 makes a 30s timeout pass in 1s)")
	fl.StringVar(&o.TrafficTokens, "traffic-token-validity", "", "how long the traffic tokens of sandboxes created with metadata "+manager.JWTAuthKey+"=true are valid (default: the cluster's, about 100 years; tests give seconds)")
}

func (o *ServeOptions) check() error {
	if o.TimeScale < 1 {
		return abxerr.New(abxerr.InvalidInput, "invalid --time-scale %v: must be 1 or more", o.TimeScale)
	}
	if o.TrafficTokens != "" {
		d, err := cmdutil.ParseDuration("--traffic-token-validity", o.TrafficTokens)
		if err != nil {
			return err
		}
		if d < time.Second {
			return abxerr.New(abxerr.InvalidInput, "invalid --traffic-token-validity %q: must be 1s or more", o.TrafficTokens).
				WithHint("leave it out for the cluster's default")
		}
		o.trafficValidity = d
	}
	switch o.Isolation {
	case "", emulator.IsolationAuto, emulator.IsolationNamespaces, emulator.IsolationNone:
		return nil
	}
	return abxerr.New(abxerr.InvalidInput, "invalid --isolation %q: use auto, namespaces or none", o.Isolation)
}

// local is how start and exec run the emulator (localserver.Local).
func (o *ServeOptions) local() localserver.Local {
	return localserver.Local{
		Name:     "abx emulator",
		Start:    func(bool) (localserver.Server, error) { return start(o) },
		Serving:  serving,
		Warnings: warnings,
	}
}

func start(o *ServeOptions) (*emulator.Emulator, error) {
	shareProcessors()
	e, err := emulator.Start(emulator.Options{Addr: o.Addr, APIKey: o.APIKey, Templates: o.Templates,
		StateDir: o.StateDir, TimeScale: o.TimeScale, Isolation: o.Isolation, TrafficTokenValidity: o.trafficValidity})
	if errors.Is(err, jail.ErrUnsupported) {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot start the emulator: %v", err).
			WithHint("run it with --isolation none (sandboxes then run on this machine as your user), or allow user namespaces")
	}
	if err != nil {
		e := abxerr.New(abxerr.InvalidInput, "cannot start the emulator: %v", err)
		switch {
		case errors.Is(err, emulator.ErrStateDir):
			return nil, e.WithHint("stop the emulator that serves it, or give another --state-dir")
		case errors.Is(err, emulator.ErrAddr):
			return nil, e.WithHint("pick a free loopback address with --addr 127.0.0.1:PORT")
		}
		return nil, e.WithHint("pick a free loopback address with --addr 127.0.0.1:PORT, or another --state-dir")
	}
	return e, nil
}

// defaultStateDir is where start and env look without --state-dir: the
// emulator directory of abx's state home (localserver.StateHome).
func defaultStateDir(dir string, getenv func(string) string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	home, err := localserver.StateHome(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "emulator"), nil
}
