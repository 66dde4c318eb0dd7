//go:build linux

package jail_test

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
)

// waitSpare waits for an init started ahead of the next box, and gives
// its pid.
func waitSpare(t *testing.T) int {
	t.Helper()
	var pid int
	waitFor(t, "a spare init", 10*time.Second, func() bool {
		pids := jail.SparePIDs()
		if len(pids) > 0 {
			pid = pids[0]
		}
		return pid != 0
	})
	return pid
}

// alive tells whether pid is a process that has not been reaped.
func alive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// A box started after another starts on the init made ahead of it, which
// gets the box's own spec (its binds, its root); a spare that died is
// passed over; DropSpares ends the one waiting.
func TestABoxStartsOnASpareInit(t *testing.T) {
	// Not parallel: the spares are the package's, and other tests' boxes
	// would take them.
	jailtest.Need(t)
	newBoxWith(t, true)
	spare := waitSpare(t)
	bx := newBoxWith(t, true)
	if !slices.Contains(bx.b.Processes(), spare) {
		t.Fatalf("the box's processes %v are not the spare's (%d)", bx.b.Processes(), spare)
	}
	if err := os.WriteFile(bx.dir+"/home-user/mine", []byte("its own\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := bx.run(t, false, "cat /home/user/mine"); code != 0 || out != "its own\n" {
		t.Fatalf("the box started on the spare: %q, status %d", out, code)
	}

	dead := waitSpare(t)
	if err := syscall.Kill(dead, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Its end: reaped, or a zombie whose every thread is gone (a
	// group's leader is a zombie while its other threads, which hold
	// its descriptors, still end).
	waitFor(t, "the spare's end", 5*time.Second, func() bool {
		proc := "/proc/" + strconv.Itoa(dead)
		b, err := os.ReadFile(proc + "/stat")
		tasks, terr := os.ReadDir(proc + "/task")
		return err != nil || terr != nil || len(tasks) == 1 && slices.Contains([]string{"Z", "X"}, statState(string(b)))
	})
	if out, code := newBoxWith(t, true).run(t, false, "echo up"); code != 0 || out != "up\n" {
		t.Fatalf("after the spare died: %q, status %d", out, code)
	}

	last := waitSpare(t)
	jail.DropSpares()
	if alive(last) {
		t.Errorf("the spare %d outlived DropSpares", last)
	}
	if pids := jail.SparePIDs(); len(pids) != 0 {
		t.Errorf("spares left: %v", pids)
	}
}

// statState is the state field of a /proc/PID/stat line.
func statState(stat string) string {
	for i := len(stat) - 1; i >= 0; i-- {
		if stat[i] == ')' && i+3 <= len(stat) {
			return stat[i+2 : i+3]
		}
	}
	return ""
}

// An init whose spec pipe closes with nothing in it (its emulator ended
// before it had a box) ends at once, quietly, with status 0.
func TestAnInitWithoutItsSpecEndsQuietly(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	defer func() { _ = r.Close() }()
	cmd := &exec.Cmd{Path: self, Args: []string{boxinit.Name}, Env: []string{boxinit.SpecEnv + "=1"},
		ExtraFiles: []*os.File{nil, nil, nil, r}}
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) != 0 {
		t.Errorf("the init: %v, said %q", err, out)
	}
}
