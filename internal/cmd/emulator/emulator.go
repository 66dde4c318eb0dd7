//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/output"
)

// EmulatorOptions are the inputs of `abx emulator start|exec|env`.
type EmulatorOptions struct {
	Addr      string
	APIKey    string
	Templates []string
	StateDir  string
	TimeScale float64
}

// NewCmdEmulator builds `abx emulator`.
func NewCmdEmulator(f *Factory) *cobra.Command {
	opts := &EmulatorOptions{}
	cmd := &cobra.Command{
		Use:   "emulator",
		Short: "Run a local sandbox-manager, so abx works without a cluster",
		Long: `Run a local stand-in for the sandbox-manager API, its gateway, and each sandbox's
envd and code interpreter, on one loopback address: to try abx and to test scripts
that use it. It speaks the same HTTP as the real service (both path sets, the API key,
errors, pages, pause and resume, timeouts that expire).

Sandboxes run commands and code as your user on this machine, without isolation; each
has a directory of its own, and the files API stays inside it (docs/emulator.md).`,
		Example: `  abx emulator exec -- ./examples/quickstart.sh
  abx emulator start          # then, in another shell: eval "$(abx emulator env)"`,
		Annotations: map[string]string{annotNoProvider: "true"},
	}
	serveFlags := func(c *cobra.Command, stateDirHelp string) {
		fl := c.Flags()
		fl.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
		fl.StringSliceVar(&opts.Templates, "templates", []string{"base", "code-interpreter"}, "templates sandboxes can be created from (code-interpreter* ones get the interpreter)")
		fl.StringVar(&opts.StateDir, "state-dir", "", stateDirHelp)
		fl.Float64Var(&opts.TimeScale, "time-scale", 1, "for tests: run the sandboxes' clock this many times faster (30 makes a 30s timeout pass in 1s)")
	}

	start := &cobra.Command{
		Use:         "start",
		Annotations: map[string]string{annotNoJSON: "true"},
		Short:       "Serve until interrupted, printing the environment that points abx at it",
		Long: `Serve until interrupted (Ctrl-C or SIGTERM), then stop every process the sandboxes
started. The export lines that point abx at the emulator go to stdout; 'abx emulator env'
prints them again from another shell.

Sandboxes are kept in the state dir and come back when the emulator starts again:
their records, deadlines and files survive, their processes and interpreter variables
do not.`,
		Example: `  abx emulator start                      # then, in another shell:
  eval "$(abx emulator env)"
  abx create --template code-interpreter`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.StateDir == "" {
				dir, err := emulator.DefaultStateDir()
				if err != nil {
					return abxerr.New(abxerr.InvalidConfig, "%v", err)
				}
				opts.StateDir = dir
			}
			e, err := startEmulator(opts)
			if err != nil {
				return err
			}
			defer func() { _ = e.Close() }()
			_, _ = fmt.Fprint(f.IO.Out, exportLines(e.Env()))
			_, _ = fmt.Fprintf(f.IO.ErrOut, `abx emulator serving on %s (state in %s)
Sandboxes run commands and code as %s on this machine, without isolation; the files
API stays inside each sandbox's directory (docs/emulator.md).
Point abx at it with the lines above, or: eval "$(abx emulator env)". Ctrl-C stops it.
`, e.URL, e.StateDir, currentUser())
			<-cmd.Context().Done()
			_ = e.Close()
			_, _ = fmt.Fprintln(f.IO.ErrOut, "abx emulator stopped")
			return nil
		},
	}
	serveFlags(start, "where sandboxes are kept across restarts (default $XDG_STATE_HOME/abx/emulator or ~/.local/state/abx/emulator)")
	start.Flags().StringVar(&opts.APIKey, "api-key", "", "API key to require (default: the state dir's, or a new random key)")

	execCmd := &cobra.Command{
		Use:         "exec [flags] -- CMD [ARG...]",
		Annotations: map[string]string{annotNoJSON: "true"}, // the command's own output
		Short:       "Start the emulator, run a command against it, stop it, exit with the command's code",
		Long: `Start the emulator, run CMD with the environment pointing abx at it, stop the emulator
and every process its sandboxes started, and exit with CMD's exit status (128+n if a
signal ended it). This is how a script that uses abx is tested without a cluster. Each
run starts empty, in a temporary state dir, unless --state-dir names one.`,
		Example: `  abx emulator exec -- ./examples/quickstart.sh
  abx emulator exec -- bash -c 'abx create --template base -q'
  abx emulator exec --time-scale 60 -- ./waits-for-expiry.sh`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(cmd, "abx emulator exec needs a command to run after --")
			}
			e, err := startEmulator(opts)
			if err != nil {
				return err
			}
			defer func() { _ = e.Close() }()
			return runChild(cmd.Context(), f, args, append(e.Env(), selfOnPath()...))
		},
	}
	serveFlags(execCmd, "where sandboxes are kept (default: a temporary dir, removed at exit)")

	env := &cobra.Command{
		Use:   "env",
		Short: "Print the environment that points abx at the running emulator",
		Long: `Print the export lines that point abx at the emulator serving the state dir, for
eval in a shell; -o json prints them as one object.`,
		Example: `  eval "$(abx emulator env)"
  abx emulator env -o json | jq -r .ABX_ALICLOUD_CONTAINER_BASE_URL`,
		Args: exactArgs(),
		RunE: func(*cobra.Command, []string) error {
			return runEmulatorEnv(f, opts.StateDir)
		},
	}
	env.Flags().StringVar(&opts.StateDir, "state-dir", "", "state dir of the emulator (default: the one 'abx emulator start' uses)")
	cmd.AddCommand(start, execCmd, env)
	return cmd
}

func runEmulatorEnv(f *Factory, dir string) error {
	if dir == "" {
		var err error
		if dir, err = emulator.DefaultStateDir(); err != nil {
			return abxerr.New(abxerr.InvalidConfig, "%v", err)
		}
	}
	rt, err := emulator.ReadRuntime(dir)
	if errors.Is(err, emulator.ErrNotRunning) {
		return abxerr.New(abxerr.NotFound, "no emulator is running with state dir %s", dir).
			WithHint("start one with 'abx emulator start' (and the same --state-dir)")
	}
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot read the emulator's state: %v", err)
	}
	if f.Format == output.JSON {
		m := map[string]string{}
		for _, kv := range rt.Env() {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return output.WriteJSON(f.IO.Out, m)
	}
	_, err = fmt.Fprint(f.IO.Out, exportLines(rt.Env()))
	return err
}

// currentUser names the local user sandboxes run as.
func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "your user"
}

// exportLines writes KEY=VALUE pairs as shell export lines.
func exportLines(env []string) string {
	var b strings.Builder
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	return b.String()
}

// selfOnPath puts this abx first on the child's PATH, so that a script
// run by `go run ./cmd/abx emulator exec` calls the same abx.
func selfOnPath() []string {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{"PATH=" + filepath.Dir(self) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

func startEmulator(opts *EmulatorOptions) (*emulator.Emulator, error) {
	if opts.TimeScale < 1 {
		return nil, abxerr.New(abxerr.InvalidInput, "invalid --time-scale %v: must be 1 or more", opts.TimeScale)
	}
	e, err := emulator.Start(emulator.Options{Addr: opts.Addr, APIKey: opts.APIKey, Templates: opts.Templates,
		StateDir: opts.StateDir, TimeScale: opts.TimeScale})
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot start the emulator: %v", err).
			WithHint("pick a free loopback address with --addr 127.0.0.1:PORT, or another --state-dir")
	}
	return e, nil
}

// runChild runs argv with env added to abx's environment. An interrupt
// reaches the child through the terminal's process group; abx waits for it.
func runChild(ctx context.Context, f *Factory, argv []string, env []string) error {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), env...)
	c.Stdin, c.Stdout, c.Stderr = f.IO.In, f.IO.Out, f.IO.ErrOut
	if err := c.Start(); err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot run %s: %v", argv[0], errors.Unwrap(err)).
			WithHint("check the command name and that it is executable")
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = c.Process.Signal(syscall.SIGTERM)
		case <-done:
		}
	}()
	err := c.Wait()
	close(done)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return exitStatus(128 + int(ws.Signal()))
		}
		return exitStatus(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return nil
}
