//go:build linux

package boxinit_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
)

// A program started with signals ignored and blocked inherits them; one
// it starts through the trampoline (this test binary links the hook)
// starts with none ignored and none blocked, its arguments and
// environment as given, less the trampoline's mark.
func TestTheTrampolineResetsSignals(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"WHO=me", "PATH=/usr/bin:/bin"}
	run := func(path string, argv, env []string) string {
		t.Helper()
		cmd := jailtest.Inherited(t, path, argv...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return string(out)
	}
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Fatal(err)
	}
	// grep itself reads its signals: a shell would unblock some first.
	signals := []string{"grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"}
	clean := "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
	if direct := run(grep, signals, env); strings.Contains(direct, "SigBlk:\t0000000000000000") || strings.Contains(direct, "SigIgn:\t0000000000000000") {
		t.Fatalf("started directly, grep inherited nothing, so this proves nothing:\n%s", direct)
	}
	// The trampoline is this binary: /proc/self/exe, which python would
	// take for its own.
	path, argv, tenv := boxinit.ExecArgs(grep, signals, env)
	if path != "/proc/self/exe" {
		t.Fatalf("the trampoline is %s", path)
	}
	if got := run(self, argv, tenv); got != clean {
		t.Errorf("through the trampoline:\n%s\nwant:\n%s", got, clean)
	}
	_, argv, tenv = boxinit.ExecArgs("/bin/sh", []string{"sh", "-c", `echo "$0 $1 ${ABX_SANDBOX_EXEC-unset} $WHO"`, "zero", "one"}, env)
	if got, want := run(self, argv, tenv), "zero one unset me\n"; got != want {
		t.Errorf("through the trampoline: %q, want %q", got, want)
	}
}
