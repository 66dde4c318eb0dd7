package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/output"
)

// SelfOnPath puts this abx first on a child's PATH, so that a script run
// by `go run ./cmd/abx emulator exec` calls the same abx.
func SelfOnPath() []string {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{"PATH=" + filepath.Dir(self) + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// RunChild runs argv with env added to abx's environment, for the exec
// verbs (emulator exec, provider engine exec), and exits as it did. An interrupt
// reaches the child through the terminal's process group; abx waits for it.
func RunChild(ctx context.Context, io *output.Streams, argv []string, env []string) error {
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
