//go:build linux

package jail_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	"github.com/abx-dev/abx/internal/emulator/spawn"
)

// box is one sandbox's directories on this machine, and its box.
type box struct {
	dir string
	b   *jail.Box
}

func newBox(t *testing.T) *box {
	t.Helper()
	return newBoxWith(t, true)
}

// newBoxWith makes a box, with a cgroup where this machine gives one
// when cgroups is set, and what tune changes of its spec.
func newBoxWith(t testing.TB, cgroups bool, tune ...func(*jail.BoxSpec)) *box {
	t.Helper()
	return newBoxOut(t, cgroups, nil, tune...)
}

// newBoxOut is newBoxWith for a box whose connections out go where out
// lets them.
func newBoxOut(t testing.TB, cgroups bool, out jail.Egress, tune ...func(*jail.BoxSpec)) *box {
	t.Helper()
	jailtest.Need(t)
	bx := &box{dir: t.TempDir()}
	spec := jail.BoxSpec{Hide: []string{bx.dir}, NoCgroup: !cgroups}
	for _, target := range []string{"/home/user", "/tmp", "/var/tmp", "/root"} {
		src := filepath.Join(bx.dir, strings.ReplaceAll(strings.TrimPrefix(target, "/"), "/", "-"))
		mode := os.FileMode(0o755)
		if strings.HasSuffix(target, "tmp") {
			mode = 0o1777 | os.ModeSticky
		}
		if err := jail.Prepare(src, mode); err != nil {
			t.Fatal(err)
		}
		spec.Binds = append(spec.Binds, jail.Bind{Source: src, Target: target})
	}
	for _, f := range tune {
		f(&spec)
	}
	b, err := jail.StartBox(spec, out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Kill)
	bx.b = b
	return bx
}

// command makes a shell line's command in the box.
func (b *box) command(t testing.TB, root bool, line string, extra ...*os.File) *spawn.Cmd {
	t.Helper()
	cmd := b.b.Command(jail.Spec{Root: root, Dir: "/home/user", Args: []string{"sh", "-c", line},
		Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/user"}})
	cmd.ExtraFiles = extra
	return cmd
}

// run runs a shell line in the box and returns its output and status.
func (b *box) run(t testing.TB, root bool, line string) (string, int) {
	t.Helper()
	cmd := b.command(t, root, line)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	var exit *spawn.ExitError
	switch {
	case errors.As(err, &exit):
		if ws := exit.Status; ws.Signaled() {
			return out.String(), 128 + int(ws.Signal())
		}
		return out.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), 0
}

func TestTheSandboxUserOwnsItsHome(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	out, code := b.run(t, false, `id -u; id -G; pwd; echo hi > /tmp/f; echo x > g; ls -n g | awk '{print $3}'`)
	if code != 0 || out != "1000\n1000\n/home/user\n1000\n" {
		t.Fatalf("exit %d, output %q", code, out)
	}
	if got, err := os.ReadFile(filepath.Join(b.dir, "tmp", "f")); err != nil || string(got) != "hi\n" {
		t.Fatalf("the sandbox's /tmp/f on this machine: %q, %v", got, err)
	}
	out, code = b.run(t, true, "id -u")
	if code != 0 || out != "0\n" {
		t.Fatalf("root: exit %d, output %q", code, out)
	}
}

func TestEverythingElseIsReadOnly(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	for _, line := range []string{"touch /etc/abx-jail-test", "touch /usr/abx-jail-test", "mkdir /home/other", "touch /dev/abx"} {
		for _, root := range []bool{false, true} {
			if root && os.Geteuid() == 0 && !strings.Contains(line, "/home") && !strings.Contains(line, "/dev") {
				// A root emulator's sandbox root writes its layer over
				// this machine's directories (TestTheSandboxsRootIsWritable).
				continue
			}
			if out, code := b.run(t, root, line); code == 0 {
				t.Errorf("%q as root=%v succeeded: %q", line, root, out)
			}
		}
	}
	if out, code := b.run(t, false, "echo 1 > /proc/sys/kernel/ns_last_pid"); code == 0 {
		t.Errorf("a sysctl was written: %q", out)
	}
	if out, code := b.run(t, false, "ls /home; ls /dev | tr '\\n' ' '; echo x > /dev/null"); code != 0 ||
		!strings.HasPrefix(out, "user\n") || strings.Contains(out, "sda") || !strings.Contains(out, "urandom") {
		t.Errorf("/home and /dev: exit %d, %q", code, out)
	}
}

func TestSandboxesDoNotSeeEachOthersFilesOrTheHosts(t *testing.T) {
	t.Parallel()
	a, b := newBox(t), newBox(t)
	// A file of the host's /tmp, named for this run alone: another test
	// process on this machine may be doing the same.
	f, err := os.CreateTemp("", "abx-jail-marker-")
	if err != nil {
		t.Fatal(err)
	}
	marker := f.Name()
	t.Cleanup(func() { _ = os.Remove(marker) })
	if _, err := f.WriteString("host"); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if _, code := a.run(t, false, "echo secret > /tmp/a; echo secret > ~/a"); code != 0 {
		t.Fatal("write in a")
	}
	if out, _ := b.run(t, true, "cat /tmp/a ~/a 2>&1; ls /tmp"); strings.Contains(out, "secret") {
		t.Fatalf("b read a's files: %q", out)
	}
	if _, code := a.run(t, true, "rm -rf /tmp/*"); code != 0 {
		t.Fatal("rm in a")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the host's /tmp lost %s: %v", marker, err)
	}
	if out, _ := a.run(t, true, "ls "+a.dir+" 2>&1"); strings.Contains(out, "home-user") {
		t.Fatalf("the emulator's state is visible: %q", out)
	}
}

func TestStatusesAndSignalsPassThrough(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	for line, want := range map[string]int{"exit 7": 7, "kill -TERM $$": 128 + 15, "no-such-command-abx": 127} {
		if _, code := b.run(t, false, line); code != want {
			t.Errorf("%q: exit %d, want %d", line, code, want)
		}
	}
}

func TestExtraFilesReachTheCommand(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	cmd := b.b.Command(jail.Spec{Dir: "/tmp", Args: []string{"sh", "-c", "echo via3 >&3; pwd >&3"}, Env: []string{"PATH=/usr/bin:/bin"}})
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	_ = w.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := new(bytes.Buffer)
	_, _ = got.ReadFrom(r) // EOF once the command is gone: no one else keeps a copy
	if err := cmd.Wait(); err != nil || got.String() != "via3\n/tmp\n" {
		t.Fatalf("%v, %q", err, got.String())
	}
}

// A root emulator's sandbox has two users, as a machine has: what root
// makes is root's, which the user may read and not change, and what the
// user makes is the user's, to root too. (An unprivileged emulator has one
// id of this machine to give both: docs/emulator.md.)
func TestRootAndUserAreTwo(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("an unprivileged emulator's root and user are one user of this machine")
	}
	b := newBox(t)
	if out, code := b.run(t, true, `echo r > /tmp/by-root && chmod 644 /tmp/by-root && stat -c %u /tmp/by-root`); code != 0 || out != "0\n" {
		t.Fatalf("root's file, to root: exit %d, %q", code, out)
	}
	out, code := b.run(t, false, `touch /tmp/by-user && stat -c %u /tmp/by-root /tmp/by-user && { echo u >> /tmp/by-root; } 2>/dev/null || echo refused`)
	if code != 0 || out != "0\n1000\nrefused\n" {
		t.Errorf("root's file and the user's, to the user: exit %d, %q", code, out)
	}
	if out, code := b.run(t, true, `stat -c %u /tmp/by-user && echo r >> /tmp/by-user && echo written`); code != 0 || out != "1000\nwritten\n" {
		t.Errorf("the user's file, to root: exit %d, %q", code, out)
	}
}
