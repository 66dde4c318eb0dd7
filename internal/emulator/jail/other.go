//go:build !linux

package jail

import (
	"fmt"
	"os"
	"os/exec"
)

const selfExe = ""

func isolate(*exec.Cmd) (int, error) { return 0, ErrUnsupported }

func run(Spec) int {
	fmt.Fprintln(os.Stderr, InitName+":", ErrUnsupported)
	return exitSetup
}

// Available says why processes cannot be isolated here.
func Available() error { return ErrUnsupported }

// Owner is this process's own user: nothing is isolated.
func Owner() (uid, gid int) { return os.Geteuid(), os.Getegid() }

// Prepare makes a directory for a sandbox.
func Prepare(dir string, mode os.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.Chmod(dir, mode)
}
