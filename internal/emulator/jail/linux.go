//go:build linux

package jail

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
)

// selfExe is this binary, whatever it was started as and even if the file
// was replaced since.
const selfExe = "/proc/self/exe"

// unprivileged is the uid and gid sandbox processes get on this machine
// when the emulator runs as root: a user of their own, so that a sandbox
// can neither signal the host's root processes nor open what root may.
// The sandbox's root is another (rootOfBoxes), so that what root makes in
// a sandbox its user may not change, as on a machine.
const (
	unprivileged = 100000
	rootOfBoxes  = 100001
)

// Owner is the user of this machine that sandbox processes run as, and
// that owns the sandboxes' directories: this process's own user, or
// unprivileged for root.
func Owner() (uid, gid int) {
	if os.Geteuid() == 0 {
		return unprivileged, unprivileged
	}
	return os.Geteuid(), os.Getegid()
}

// isolate makes cmd a box's init: mount and PID namespaces of its own,
// and a network namespace when ownNetwork says.
// Root needs nothing more: its init mounts as root and maps the command's
// user to unprivileged, its root to rootOfBoxes. Anyone else's init is
// uid 0 of a new user namespace that is this user outside, where it may
// mount, and maps the command's user and root both to that uid 0, the one
// id it has. It returns the ids the command's user and root map to.
func isolate(cmd *exec.Cmd, ownNetwork bool) (parentID, rootID int, err error) {
	// A session of its own: no sandbox process shares the emulator's
	// terminal (it could read its keys).
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID, Setsid: true}
	if ownNetwork {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if os.Geteuid() == 0 {
		return unprivileged, rootOfBoxes, nil
	}
	cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
	cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
	cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true}
	return 0, 0, nil
}

var probe struct {
	once sync.Once
	err  error
}

// Available reports whether sandbox processes can be isolated here: it
// sets a whole box up once, in a scratch directory, and remembers why
// that failed, if it did.
func Available() error {
	probe.once.Do(func() { probe.err = tryBox() })
	return probe.err
}

func tryBox() error {
	dir, err := os.MkdirTemp("", "abx-jail-probe-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	spec := BoxSpec{Probe: true, Hide: []string{dir}}
	for _, target := range []string{"/home/user", "/tmp"} {
		src := filepath.Join(dir, filepath.Base(target))
		if err := Prepare(src, 0o755); err != nil {
			return err
		}
		spec.Binds = append(spec.Binds, Bind{Source: src, Target: target})
	}
	b, err := StartBox(spec, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	b.Kill()
	return nil
}

// Prepare makes a directory for a sandbox and gives it to Owner.
func Prepare(dir string, mode os.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	uid, gid := Owner()
	if uid != os.Geteuid() {
		if err := os.Lchown(dir, uid, gid); err != nil {
			return err
		}
	}
	return os.Chmod(dir, mode)
}

// rootMap is a user namespace that maps this machine's root to the
// sandboxes' (rootOfBoxes), for the idmapped mounts a root emulator's boxes
// lay their layers over (BoxSpec.IDMap). A copy of this binary holds it
// while it is opened; the open descriptor keeps it for as long as this
// process lives.
var rootMap = sync.OnceValues(func() (*os.File, error) {
	holder := exec.Command(selfExe)
	holder.Args = []string{boxinit.HoldName}
	holder.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: rootOfBoxes, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: rootOfBoxes, Size: 1}}}
	release, err := holder.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := holder.Start(); err != nil {
		return nil, err
	}
	ns, err := os.Open(fmt.Sprintf("/proc/%d/ns/user", holder.Process.Pid))
	_ = release.Close()
	_ = holder.Wait()
	return ns, err
})
