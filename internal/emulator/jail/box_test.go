//go:build linux

package jail_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// detachers are the ways a process leaves the command that started it:
// each starts `sleep MARK` and returns at once.
var detachers = map[string]string{
	"setsid":      "setsid sleep %s >/dev/null 2>&1 < /dev/null &",
	"double fork": "( (sleep %s >/dev/null 2>&1 < /dev/null &) & )",
	"nohup":       "nohup sleep %s >/dev/null 2>&1 < /dev/null &",
	"disown":      "bash -c 'sleep %s >/dev/null 2>&1 < /dev/null & disown'",
}

// marker is a sleep length no other test uses, found in the machine's
// process table by its command line.
func marker(n int) string {
	return fmt.Sprintf("7%03d.%d", n, os.Getpid()%100000)
}

// sleepers lists the pids, on this machine, of `sleep MARK`.
func sleepers(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && string(cmdline) == "sleep\x00"+mark+"\x00" {
			pids = append(pids, pid)
		}
	}
	return pids
}

func waitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// However a process detached from the command that started it, it lives
// on while the box does, and ends, within 2 s, when the box is killed.
func TestKillEndsEveryProcessOfTheBox(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	n := 0
	var marks []string
	for name, line := range detachers {
		n++
		mark := marker(n)
		marks = append(marks, mark)
		if out, code := b.run(t, false, fmt.Sprintf(line, mark)); code != 0 {
			t.Fatalf("%s: exit %d, %q", name, code, out)
		}
		waitFor(t, name+" started", 5*time.Second, func() bool { return len(sleepers(mark)) == 1 })
	}
	time.Sleep(200 * time.Millisecond)
	for _, mark := range marks {
		if len(sleepers(mark)) != 1 {
			t.Fatalf("sleep %s ended with the command that started it", mark)
		}
	}
	start := time.Now()
	b.b.Kill()
	for _, mark := range marks {
		waitFor(t, "sleep "+mark+" ended", 2*time.Second-time.Since(start)+time.Second, func() bool { return len(sleepers(mark)) == 0 })
	}
}

// Inside, ps lists the box's processes alone, with the box's own pids:
// its init is 1.
func TestTheBoxSeesItsOwnProcesses(t *testing.T) {
	t.Parallel()
	a, b := newBox(t), newBox(t)
	mark := marker(90)
	if _, code := a.run(t, false, "setsid sleep "+mark+" >/dev/null 2>&1 < /dev/null &"); code != 0 {
		t.Fatal("start the sleeper")
	}
	out, code := b.run(t, false, "ps -e -o pid=,args=")
	if code != 0 {
		t.Fatalf("ps: exit %d, %q", code, out)
	}
	if strings.Contains(out, mark) {
		t.Errorf("another box's process is listed:\n%s", out)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	lines := 0
	for sc.Scan() {
		lines++
		pid, err := strconv.Atoi(strings.Fields(sc.Text())[0])
		if err != nil || pid > 100 {
			t.Errorf("a pid not of the box's own: %q", sc.Text())
		}
	}
	if lines < 2 || lines > 6 || !strings.Contains(out, "1 "+jail.InitName) {
		t.Errorf("ps -e in a box with nothing running:\n%s", out)
	}
	out, _ = a.run(t, false, "ps -e -o args=")
	if !strings.Contains(out, "sleep "+mark) {
		t.Errorf("the box's own sleeper is not listed:\n%s", out)
	}
}

// A frozen box runs nothing: a loop that writes the time stops writing,
// and goes on once thawed. Both ways: with the box's cgroup, and, where
// none can be made, with the init stopping each process.
func TestFreezeStopsTheWholeBox(t *testing.T) {
	t.Parallel()
	for _, cgroups := range []bool{true, false} {
		t.Run(fmt.Sprintf("cgroup=%v", cgroups), func(t *testing.T) {
			t.Parallel()
			b := newBoxWith(t, cgroups)
			// setsid: the loop is out of the command's session, as a
			// detached server is.
			if _, code := b.run(t, false, "setsid sh -c 'while :; do date +%s%N >> /tmp/ticks; sleep 0.05; done' >/dev/null 2>&1 < /dev/null &"); code != 0 {
				t.Fatal("start the loop")
			}
			ticks := filepath.Join(b.dir, "tmp", "ticks")
			count := func() int {
				data, _ := os.ReadFile(ticks)
				return strings.Count(string(data), "\n")
			}
			waitFor(t, "the loop ticks", 5*time.Second, func() bool { return count() >= 3 })
			if err := b.b.Freeze(); err != nil {
				t.Fatal(err)
			}
			frozen := count()
			time.Sleep(600 * time.Millisecond)
			if now := count(); now != frozen {
				t.Errorf("frozen, the loop went on from %d to %d ticks", frozen, now)
			}
			if err := b.b.Thaw(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the loop goes on after the thaw", 5*time.Second, func() bool { return count() >= frozen+3 })
		})
	}
}

// Signals reach the command and its group through the init, which tells
// how the command ended; a signal after the end reaches no one.
func TestTheInitHoldsTheCommandForTheEmulator(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	mark := marker(91)
	cmd := b.command(t, false, "trap 'echo got TERM; exit 3' TERM; sleep "+mark+" >/dev/null & wait")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the sleeper", 5*time.Second, func() bool { return len(sleepers(mark)) == 1 })
	if pid := cmd.Process.Pid(); pid < 2 || pid > 100 {
		t.Errorf("the command's pid in the box: %d", pid)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if cmd.Status.ExitStatus() != 3 || out.String() != "got TERM\n" {
		t.Errorf("TERM: %v, %q", err, out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("a signal after the end: %v", err)
	}

	mark = marker(92)
	cmd = b.command(t, false, "sleep "+mark+" & sleep "+mark+"; wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the sleepers", 5*time.Second, func() bool { return len(sleepers(mark)) == 2 })
	cmd.Process.SignalGroup(syscall.SIGKILL)
	_ = cmd.Wait()
	if !cmd.Status.Signaled() || cmd.Status.Signal() != syscall.SIGKILL {
		t.Errorf("the group's KILL: %s", spawn.StatusString(cmd.Status))
	}
	waitFor(t, "the group's sleepers ended", 2*time.Second, func() bool { return len(sleepers(mark)) == 0 })
}

// A command started with EndGroup takes its process group with it when it
// ends; one without leaves it running, as a shell's background job.
func TestEndGroupEndsWhatTheCommandStarted(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	for _, endGroup := range []bool{false, true} {
		mark := marker(94)
		if endGroup {
			mark = marker(95)
		}
		cmd := b.command(t, false, "sleep "+mark+" >/dev/null 2>&1 </dev/null & exit 0")
		cmd.EndGroup = endGroup
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		if endGroup {
			waitFor(t, "the group ended", 2*time.Second, func() bool { return len(sleepers(mark)) == 0 })
			continue
		}
		time.Sleep(200 * time.Millisecond)
		if len(sleepers(mark)) != 1 {
			t.Errorf("without EndGroup the background sleep ended with the command")
		}
	}
}
