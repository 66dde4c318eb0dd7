//go:build !linux

package jail

import (
	"context"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// Box exists on Linux only.
type Box struct{}

// StartBox says why processes cannot be isolated here.
func StartBox(BoxSpec, Egress) (*Box, error) { return nil, ErrUnsupported }

// Command is never reached: no box starts here.
func (*Box) Command(Spec) *spawn.Cmd {
	return spawn.New(func([]*os.File, bool) (spawn.Process, error) { return nil, ErrUnsupported })
}

// Start is never reached.
func (*Box) Start(Spec, []*os.File) (*Process, error) { return nil, ErrUnsupported }

// Process exists on Linux only.
type Process struct{}

// Pid is never reached.
func (*Process) Pid() int { return 0 }

// Signal is never reached.
func (*Process) Signal(syscall.Signal) error { return ErrUnsupported }

// SignalGroup is never reached.
func (*Process) SignalGroup(syscall.Signal) {}

// Wait is never reached.
func (*Process) Wait() (ws syscall.WaitStatus, err error) { return ws, ErrUnsupported }

// OpenPTY is never reached.
func (*Box) OpenPTY() (master, slave *os.File, err error) { return nil, nil, ErrUnsupported }

// Freeze is never reached.
func (*Box) Freeze() error { return ErrUnsupported }

// Thaw is never reached.
func (*Box) Thaw() error { return ErrUnsupported }

// Processes is never reached.
func (*Box) Processes() []int { return nil }

// CPU is never reached.
func (*Box) CPU() (time.Duration, float64, bool) { return 0, 0, false }

// Memory is never reached.
func (*Box) Memory() (used, limit int64) { return 0, 0 }

// Done is never reached.
func (*Box) Done() <-chan struct{} { return nil }

// Dial is unsupported where boxes are.
func (*Box) Dial(context.Context, int) (net.Conn, error) { return nil, ErrUnsupported }

// Kill is never reached.
func (*Box) Kill() {}

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

// Layered is never reached.
func (*Box) Layered() bool { return false }

// Root is never reached.
func (*Box) Root() (*os.Root, string, error) { return nil, "", ErrUnsupported }

// DropSpares has nothing to end where there are no boxes.
func DropSpares() {}
