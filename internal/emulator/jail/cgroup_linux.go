//go:build linux

package jail

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroup is a box's control group (cgroup v2), where this machine lets
// abx make one: a root emulator, or one given a delegated group. It
// freezes every process of the box at once (cgroup.freeze) and ends them
// at once (cgroup.kill); without one, the init stops them one by one and
// its end ends them.
type cgroup struct {
	dir string
	fd  int // the directory, for CLONE_INTO_CGROUP
}

// cgroupParent is this emulator's group, made on first use: the group
// abx runs in, in the cgroup v2 hierarchy, and below it
// abx-emulator-PID.
var cgroupParent = sync.OnceValues(func() (string, error) {
	root, err := cgroup2Root()
	if err != nil {
		return "", err
	}
	own, err := ownCgroup()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, own, fmt.Sprintf("abx-emulator-%d", os.Getpid())), nil
})

var boxes atomic.Int64

// newCgroup makes a group for one box.
func newCgroup() (*cgroup, error) {
	parent, err := cgroupParent()
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	dir := filepath.Join(parent, fmt.Sprintf("box-%d", boxes.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	// Only a group this process may fill and freeze is of use.
	for _, f := range []string{"cgroup.procs", "cgroup.freeze", "cgroup.kill"} {
		if err := unix.Access(filepath.Join(dir, f), unix.W_OK); err != nil {
			_ = os.Remove(dir)
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, err
	}
	return &cgroup{dir: dir, fd: fd}, nil
}

// cgroup2Root is where the cgroup v2 hierarchy is mounted: on its own, or
// beside v1's controllers (a hybrid machine's "unified").
func cgroup2Root() (string, error) {
	for _, p := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		var st unix.Statfs_t
		if unix.Statfs(p, &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC {
			return p, nil
		}
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// ownCgroup is this process's group in the v2 hierarchy ("0::/path").
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("no cgroup v2 group in /proc/self/cgroup")
}

// freezeWait bounds the wait for the kernel to say the group is frozen.
const freezeWait = 2 * time.Second

// freeze freezes (or thaws) the group and waits until the kernel says it
// is so.
func (c *cgroup) freeze(on bool) error {
	v := "0"
	if on {
		v = "1"
	}
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.freeze"), []byte(v), 0); err != nil {
		return err
	}
	deadline := time.Now().Add(freezeWait)
	for c.frozen() != on {
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup.freeze %s: not done after %s", v, freezeWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

func (c *cgroup) frozen() bool { return c.event("frozen") == "1" }

// event is a field of cgroup.events ("populated", "frozen").
func (c *cgroup) event(name string) string {
	f, err := os.Open(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == name {
			return v
		}
	}
	return ""
}

// kill ends every process of the group.
func (c *cgroup) kill() {
	_ = os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
}

// processes lists the group's processes.
func (c *cgroup) processes() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// remove deletes the group once it is empty (a moment after kill).
func (c *cgroup) remove() {
	_ = unix.Close(c.fd)
	deadline := time.Now().Add(killWait)
	for {
		err := syscall.Rmdir(c.dir)
		if err == nil || errors.Is(err, syscall.ENOENT) || time.Now().After(deadline) {
			// The emulator's own group goes with its last box (and comes
			// back with the next).
			_ = syscall.Rmdir(filepath.Dir(c.dir))
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nsMembers lists the processes, on this machine, in the PID namespace
// whose init has pid init.
func nsMembers(init int) []int {
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", init))
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && l == ns {
			pids = append(pids, pid)
		}
	}
	return pids
}
