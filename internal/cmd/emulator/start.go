//go:build unix

package emulator

import (
	"context"
	"fmt"
	"os/user"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/localserver"
	"github.com/abx-dev/abx/internal/output"
)

// StartOptions are the inputs of `abx emulator start`.
type StartOptions struct {
	Printer *output.Printer
	ServeOptions
}

// NewCmdStart builds `abx emulator start`.
func NewCmdStart(f *cmdutil.Factory, runF func(context.Context, *StartOptions) error) *cobra.Command {
	opts := &StartOptions{Printer: f.Printer}
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Serve until interrupted, printing the environment that points abx at it",
		Long: `Serve until interrupted (Ctrl-C or SIGTERM), then stop every process the sandboxes
started. The export lines that point abx at the emulator go to stdout (-o json: one
object); 'abx emulator env' prints them again from another shell.

Sandboxes are kept in the state dir and come back when the emulator starts again:
their records, deadlines and files survive, their processes and interpreter variables
do not.`,
		Example: `  abx emulator start                      # then, in another shell:
  eval "$(abx emulator env)"
  abx create --template code-interpreter`,
		Args: cmdutil.ExactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			var err error
			if opts.StateDir, err = defaultStateDir(opts.StateDir, f.Getenv); err != nil {
				return err
			}
			return cmdutil.Run(cmd, opts, runF, runStart)
		},
	}
	opts.addFlags(cmd, f.Getenv, "where sandboxes are kept across restarts (default $XDG_STATE_HOME/abx/emulator or ~/.local/state/abx/emulator)")
	cmd.Flags().StringVar(&opts.APIKey, "api-key", "", "API key to require (default: the state dir's, or a new random key)")
	return cmd
}

func runStart(ctx context.Context, opts *StartOptions) error {
	return opts.local().Serve(ctx, opts.Printer)
}

// serving is what stderr says once the emulator serves: it records
// itself in its state dir for 'abx emulator env'.
func serving(s localserver.Server) []string {
	e := s.(*emulator.Emulator)
	lines := []string{fmt.Sprintf("abx emulator serving on %s (state in %s)", e.URL, e.StateDir)}
	if e.NotIsolated == "" {
		lines = append(lines, "Each sandbox runs commands and code as user (uid 1000) in a view of its own: its",
			"/home/user, /tmp, /var/tmp and /root, the rest of this machine read-only (docs/emulator.md).")
	}
	return append(lines, `Point abx at it with the lines above, or: eval "$(abx emulator env)". Ctrl-C stops it.`)
}

// warnings say, whatever the form, what sandboxes' processes can reach
// when they are not isolated.
func warnings(s localserver.Server) []string {
	e := s.(*emulator.Emulator)
	if e.NotIsolated == "" {
		return nil
	}
	return []string{fmt.Sprintf("Sandboxes are NOT isolated here (%s): commands and code run as %s", e.NotIsolated, currentUser()),
		"on this machine; the files API stays inside each sandbox's directories (docs/emulator.md)."}
}

// currentUser names the local user sandboxes run as.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "your user"
}
