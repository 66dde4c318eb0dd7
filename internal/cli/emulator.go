package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/emulator"
)

// EmulatorOptions are the inputs of `abx emulator start|exec`.
type EmulatorOptions struct {
	Addr      string
	APIKey    string
	Templates []string
	StateDir  string
}

// NewCmdEmulator builds `abx emulator`.
func NewCmdEmulator(f *Factory) *cobra.Command {
	opts := &EmulatorOptions{}
	cmd := &cobra.Command{
		Use:   "emulator",
		Short: "Run a local sandbox-manager, so abx works without a cluster",
		Long: `Run a local stand-in for the sandbox-manager API on a loopback address, to try abx
and to test scripts that use it. It speaks the same HTTP as the real service (both
path sets, the API key, errors, pages, pause and resume) and keeps its sandboxes in
memory; each has a directory of its own and an envd that runs real processes
on this machine, as your user (docs/emulator.md).`,
		Annotations: map[string]string{annotNoProvider: "true"},
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0 picks a free one)")
	pf.StringSliceVar(&opts.Templates, "templates", []string{"base", "code-interpreter"}, "templates sandboxes can be created from")
	pf.StringVar(&opts.StateDir, "state-dir", "", "directory for the sandboxes' files (default: a temporary one, removed at exit)")

	start := &cobra.Command{
		Use:   "start",
		Short: "Serve until interrupted, printing the environment that points abx at it",
		Example: `  abx emulator start            # then, in another shell, paste the export lines
  eval "$(abx emulator start & sleep 1)"`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			e, err := startEmulator(opts)
			if err != nil {
				return err
			}
			defer func() { _ = e.Close() }()
			_, _ = fmt.Fprint(f.IO.Out, exportLines(e.Env()))
			_, _ = fmt.Fprintf(f.IO.ErrOut, "abx emulator serving on %s; press Ctrl-C to stop\n", e.URL)
			<-cmd.Context().Done()
			_, _ = fmt.Fprintln(f.IO.ErrOut, "abx emulator stopped")
			return nil
		},
	}
	start.Flags().StringVar(&opts.APIKey, "api-key", "", "API key to require (default: a new random key)")

	execCmd := &cobra.Command{
		Use:   "exec [flags] -- CMD [ARG...]",
		Short: "Start the emulator, run a command against it, stop it, exit with the command's code",
		Long: `Start the emulator, run CMD with the environment pointing abx at it, stop the emulator,
and exit with CMD's exit status (128+n if a signal ended it). This is how a script that
uses abx is tested without a cluster.`,
		Example: `  abx emulator exec -- ./examples/quickstart.sh
  abx emulator exec -- bash -c 'abx create --template base -q'`,
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
	cmd.AddCommand(start, execCmd)
	return cmd
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
	e, err := emulator.Start(emulator.Options{Addr: opts.Addr, APIKey: opts.APIKey, Templates: opts.Templates, StateDir: opts.StateDir})
	if err != nil {
		return nil, abxerr.New(abxerr.InvalidInput, "cannot start the emulator: %v", err).
			WithHint("pick a free loopback address with --addr 127.0.0.1:PORT")
	}
	return e, nil
}

// exitStatus is a child's exit status passed through as abx's own.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

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
