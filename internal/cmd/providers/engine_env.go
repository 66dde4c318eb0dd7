package providers

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/localserver"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/runfile"
)

// engineRecord is what a serving engine leaves for `engine env`.
type engineRecord struct {
	URL      string   `json:"url"`
	PID      int      `json:"pid"`
	Provider string   `json:"provider"`
	Env      []string `json:"env"`
}

// recordPath is where serve records itself: engine.json in abx's state
// home (localserver.StateHome).
func recordPath(getenv func(string) string) (string, error) {
	home, err := localserver.StateHome(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "engine.json"), nil
}

// EnvOptions are the inputs of `abx provider engine env`.
type EnvOptions struct {
	Printer *output.Printer
	Record  string
}

// NewCmdEngineEnv builds `abx provider engine env`.
func NewCmdEngineEnv(f *cmdutil.Factory, runF func(context.Context, *EnvOptions) error) *cobra.Command {
	opts := &EnvOptions{Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the environment that points E2B's SDKs at the running engine",
		Long: `Print the export lines of the engine 'abx provider engine serve' runs, for eval in a
shell; -o json prints them as one object. Exits 3 when no engine is running.`,
		Example: `  eval "$(abx provider engine env)"
  abx provider engine env -o json | jq -r .E2B_API_URL`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.Record, err = recordPath(f.Getenv); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runEngineEnv)
		},
	}
	return cmdutil.NoProvider(cmd)
}

func runEngineEnv(_ context.Context, opts *EnvOptions) error {
	var rec engineRecord
	err := runfile.Read(opts.Record, &rec, func() bool { return rec.PID > 0 && runfile.Listening(rec.URL) })
	if errors.Is(err, runfile.ErrNotRunning) {
		return abxerr.New(abxerr.NotFound, "no engine is running").
			WithHint("start one with 'abx provider engine serve'")
	}
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot read the engine's record %s: %v", opts.Record, err)
	}
	return opts.Printer.Env(rec.Env)
}
