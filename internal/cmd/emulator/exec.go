//go:build unix

package emulator

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
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/output"
)

// ExecOptions are the inputs of `abx emulator exec`.
type ExecOptions struct {
	IO *output.Streams
	ServeOptions
	Argv []string
}

// NewCmdExec builds `abx emulator exec`.
func NewCmdExec(f *cmdutil.Factory, runF func(context.Context, *ExecOptions) error) *cobra.Command {
	opts := &ExecOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "exec [flags] -- CMD [ARG...]",
		Short: "Start the emulator, run a command against it, stop it, exit with the command's code",
		Long: `Start the emulator, run CMD with the environment pointing abx at it, stop the emulator
and every process its sandboxes started, and exit with CMD's exit status (128+n if a
signal ended it). This is how a script that uses abx is tested without a cluster. Each
run starts empty, in a temporary state dir, unless --state-dir names one.`,
		Example: `  abx emulator exec -- ./examples/quickstart.sh
  abx emulator exec -- bash -c 'abx create --template base -q'
  abx emulator exec --time-scale 60 -- ./waits-for-expiry.sh`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError(cmd, "abx emulator exec needs a command to run after --")
			}
			if err := opts.check(); err != nil {
				return err
			}
			opts.Argv = args
			return cmdutil.Run(cmd, opts, runF, runExec)
		},
	}
	opts.addFlags(cmd, f.Getenv, "where sandboxes are kept (default: a temporary dir, removed at exit)")
	cmdutil.PassThrough(cmd)
	return cmdutil.NoJSON(cmd) // the command's own output
}

func runExec(ctx context.Context, opts *ExecOptions) error {
	e, err := start(&opts.ServeOptions)
	if err != nil {
		return err
	}
	defer func() { _ = e.Close() }()
	return runChild(ctx, opts.IO, opts.Argv, append(e.Env(), selfOnPath()...))
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

// runChild runs argv with env added to abx's environment. An interrupt
// reaches the child through the terminal's process group; abx waits for it.
func runChild(ctx context.Context, io *output.Streams, argv []string, env []string) error {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), env...)
	c.Stdin, c.Stdout, c.Stderr = io.In, io.Out, io.ErrOut
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
			return abxerr.Status(128 + int(ws.Signal()))
		}
		return abxerr.Status(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return nil
}
