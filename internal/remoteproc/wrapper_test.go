//go:build linux

package remoteproc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The wrapper, run here by this machine's bash as envd would run it: the
// command's output, input and status pass through, and every signal ends
// the whole process group, however the command treats it.

// wrapped starts the wrapper around line, in a process group of its own as
// the emulator's envd starts processes, with stdin as given.
func wrapped(t *testing.T, line string, stdin string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	cmd := exec.Command("/bin/bash", "-c", wrapper, wrapperName, line)
	// A home of its own: the login shell reads no profile of this machine's
	// user.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, &stdout, &stderr
}

// within bounds every wait of the wrapper's tests: a hang guard, generous
// for a loaded machine under -race.
const within = 2 * time.Minute

// exitOfWait is the wrapper's status as a shell gives it (128+n for a
// signal).
func exitOfWait(t *testing.T, cmd *exec.Cmd, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		t.Fatal(err)
	case <-time.After(within):
		t.Fatalf("the wrapper did not end within %s", within)
	}
	return -1
}

// sleepMark is a sleep's argument no other process of this machine has:
// how a test finds the sleeps it started (a zombie has no arguments, so an
// ended one is not found).
func sleepMark() string { return fmt.Sprintf("%d.%06d", 4000+rand.IntN(1000), rand.IntN(1000000)) }

// sleepers lists the pids of the running 'sleep MARK' processes.
func sleepers(mark string) []string {
	var out []string
	want := "sleep\x00" + mark + "\x00"
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && string(b) == want {
			out = append(out, filepath.Base(filepath.Dir(p)))
		}
	}
	return out
}

// waitSleepers waits (up to within) until n 'sleep MARK' run.
func waitSleepers(t *testing.T, mark string, n int) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(sleepers(mark)) == n {
			return
		}
	}
	t.Fatalf("%d 'sleep %s' running, want %d", len(sleepers(mark)), mark, n)
}

func TestWrapperPassesOutputInputAndStatusThrough(t *testing.T) {
	t.Parallel()
	cmd, stdout, stderr := wrapped(t, `read -r line; echo "out $line"; echo err >&2; exit 7`, "typed\n")
	if code := exitOfWait(t, cmd, within); code != 7 || stdout.String() != "out typed\n" || stderr.String() != "err\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 7, %q, %q", code, stdout, stderr, "out typed\n", "err\n")
	}
	// A command stopped for a while is waited for, not taken for ended.
	cmd, stdout, _ = wrapped(t, `(sleep 0.5; kill -CONT $$) & kill -STOP $$; echo after; exit 4`, "")
	if code := exitOfWait(t, cmd, within); code != 4 || stdout.String() != "after\n" {
		t.Errorf("exit %d, stdout %q; want 4, %q", code, stdout, "after\n")
	}
	// A command that kills itself reports the signal as bash does.
	cmd, _, stderr = wrapped(t, `kill -TERM $$`, "")
	if code := exitOfWait(t, cmd, within); code != 143 || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want 143 and nothing", code, stderr)
	}
}

// SIGTERM reaches the whole group; a group that ignores it is killed when
// the grace is over.
func TestWrapperSendsTERMToTheWholeGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, prefix string
		want         int
	}{
		{"it ends", "", 143},
		{"it ignores TERM", `trap "" TERM; `, 137},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := sleepMark(), sleepMark()
			cmd, stdout, _ := wrapped(t, tc.prefix+"sleep "+a+" & sleep "+b+"; echo done", "")
			waitSleepers(t, a, 1)
			waitSleepers(t, b, 1)
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := exitOfWait(t, cmd, within); code != tc.want {
				t.Errorf("exit %d, want %d", code, tc.want)
			}
			waitSleepers(t, a, 0)
			waitSleepers(t, b, 0)
			if stdout.Len() != 0 {
				t.Errorf("stdout %q", stdout)
			}
		})
	}
}

// SIGKILL cannot be passed on: the watcher ends the group when the wrapper
// is gone.
func TestWrapperKilledTakesTheGroupWithIt(t *testing.T) {
	t.Parallel()
	a, b := sleepMark(), sleepMark()
	cmd, _, _ := wrapped(t, `trap "" TERM; sleep `+a+" & sleep "+b+"; echo done", "")
	waitSleepers(t, a, 1)
	waitSleepers(t, b, 1)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if code := exitOfWait(t, cmd, within); code != 137 {
		t.Errorf("exit %d, want 137", code)
	}
	waitSleepers(t, a, 0)
	waitSleepers(t, b, 0)
}

// A command that ends by itself leaves what it started on purpose running,
// as it did before the wrapper.
func TestWrapperLeavesChildrenOfANormalEnd(t *testing.T) {
	t.Parallel()
	a := sleepMark()
	cmd, _, _ := wrapped(t, "sleep "+a+" >/dev/null 2>&1 & echo started", "")
	if code := exitOfWait(t, cmd, within); code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	waitSleepers(t, a, 1)
	time.Sleep(300 * time.Millisecond) // the watcher would kill it at once
	pids := sleepers(a)
	if len(pids) != 1 {
		t.Fatalf("the child was killed after the command's normal end")
	}
	var pid int
	_, _ = fmt.Sscan(pids[0], &pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// A KILL at any moment of the wrapper's start, even before it has told the
// watcher anything, takes the command with it: the command reports its
// own group to the watcher before it runs.
func TestWrapperKilledWhileStartingTakesTheGroupWithIt(t *testing.T) {
	t.Parallel()
	var marks []string
	for i := range 40 {
		mark := sleepMark()
		marks = append(marks, mark)
		cmd, _, _ := wrapped(t, "exec sleep "+mark, "")
		// From at once to a few milliseconds in: the wrapper is starting
		// bash, starting the watcher, forking the command.
		time.Sleep(time.Duration(i%8) * 500 * time.Microsecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if code := exitOfWait(t, cmd, within); code != 137 {
			t.Errorf("exit %d, want 137", code)
		}
	}
	for _, mark := range marks {
		waitSleepers(t, mark, 0)
	}
}
