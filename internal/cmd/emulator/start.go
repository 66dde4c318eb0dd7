//go:build unix

package emulator

import (
	"context"
	"fmt"
	"os/user"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/localserver"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/profile"
	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
	"github.com/abx-dev/abx/internal/runfile"
)

// StartOptions are the inputs of `abx emulator start`.
type StartOptions struct {
	Printer *output.Printer
	ServeOptions
	// Profile is the profile kept pointing at this emulator ("" for
	// none): --profile, else "emulator"; --no-profile keeps none.
	Profile string
	// Files are the config file's, where the profile is kept.
	Files profileFiles
}

// profileFiles are where the emulator's profile is written.
type profileFiles struct {
	Path  string
	Home  string
	Known profile.Known
}

// NewCmdStart builds `abx emulator start`.
func NewCmdStart(f *cmdutil.Factory, runF func(context.Context, *StartOptions) error) *cobra.Command {
	opts := &StartOptions{Printer: f.Printer}
	var noProfile bool
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Serve until interrupted, printing the environment that points abx at it",
		Long: `Serve until interrupted (Ctrl-C or SIGTERM), then stop every process the sandboxes
started. The export lines that point abx at the emulator go to stdout (-o json: one
object); 'abx emulator env' prints them again from another shell.

Sandboxes are kept in the state dir and come back when the emulator starts again:
their records, deadlines and files survive, their processes and interpreter variables
do not.

It also keeps a profile pointing at it, "emulator" (or --profile NAME; --no-profile
for none), so that 'abx --profile emulator list' works from any shell while it runs; the
profile reads the emulator's address and key from the state dir each time.`,
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
			if opts.StateDir, err = filepath.Abs(opts.StateDir); err != nil {
				return err
			}
			opts.Profile = profile.EmulatorName
			if fl := f.Flags.Lookup("profile"); fl != nil && fl.Changed {
				opts.Profile = fl.Value.String()
			}
			if noProfile {
				opts.Profile = ""
			} else if err := profile.CheckName(opts.Profile); err != nil {
				return err
			}
			opts.Files = profileFiles{Path: profile.Path(f.Getenv), Home: runfile.Home(f.Getenv), Known: profile.SettingsOf(f.Registry)}
			return cmdutil.Run(cmd, opts, runF, runStart)
		},
	}
	opts.addFlags(cmd, f.Getenv, "where sandboxes are kept across restarts (default $XDG_STATE_HOME/abx/emulator or ~/.local/state/abx/emulator)")
	cmd.Flags().StringVar(&opts.APIKey, "api-key", "", "API key to require (default: the state dir's, or a new random key)")
	cmd.Flags().BoolVar(&noProfile, "no-profile", false, "keep no profile pointing at this emulator")
	return cmd
}

func runStart(ctx context.Context, opts *StartOptions) error {
	l := opts.local()
	lines := l.Serving
	l.Serving = func(s localserver.Server) []string {
		out := lines(s)
		if opts.Profile == "" {
			return out
		}
		if err := opts.register(s.(*emulator.Emulator)); err != nil {
			return append(out, fmt.Sprintf("warning: cannot keep profile %s pointing at it: %s", opts.Profile, abxerr.From(err).Message))
		}
		return append(out, fmt.Sprintf("Profile %s points at it: abx --profile %s list", opts.Profile, opts.Profile))
	}
	return l.Serve(ctx, opts.Printer)
}

// register keeps the profile pointing at this emulator: its state dir,
// where a run reads the address and key it has now, and the address for
// people reading the file. A profile of that name that is not an
// emulator's is left alone.
func (opts *StartOptions) register(e *emulator.Emulator) error {
	return profile.Update(opts.Files.Path, opts.Files.Home, opts.Files.Known, func(file *profile.File) error {
		if old := file.Profiles[opts.Profile]; old != nil && old.Emulator == "" {
			return abxerr.New(abxerr.InvalidInput, "profile %s is a cluster's, not an emulator's", opts.Profile)
		}
		file.Profiles[opts.Profile] = &profile.Profile{Provider: alicloudcontainer.Name, Emulator: opts.StateDir,
			Settings: map[string]string{"base_url": e.URL + "/kruise/api", "protocol": "private"}}
		return nil
	})
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
