package jailtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// inheritedEnv marks the copy of a test binary that Rerun starts.
const inheritedEnv = "ABX_TEST_INHERITED_SIGNALS"

// startInherited starts a program with SIGINT and SIGHUP ignored and
// SIGINT, SIGTERM and SIGUSR1 blocked, as a script's background job, nohup
// or a CI runner may start the emulator. A shell can ignore a signal but
// not block one: python3 does both, then execs the program (its path, then
// its whole argv).
const startInherited = `import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGUSR1})
os.execv(sys.argv[1], sys.argv[2:])
`

// Inherited is a command that starts path with argv (argv[0] included)
// with signals ignored and blocked (startInherited); t is skipped where
// there is no python3 to start it so.
func Inherited(t testing.TB, path string, argv ...string) *exec.Cmd {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: nothing here starts a program with signals blocked")
	}
	return exec.Command(python, append([]string{"-c", startInherited, path}, argv...)...)
}

// IsRerun reports whether this test binary is the copy Rerun started,
// with signals ignored and blocked.
func IsRerun() bool { return os.Getenv(inheritedEnv) == "1" }

// Rerun runs the tests pattern names once more in a copy of this test
// binary started with signals ignored and blocked (Inherited), and fails
// t with their output unless they all pass. It is skipped in that copy
// itself.
func Rerun(t *testing.T, pattern string) {
	t.Helper()
	if IsRerun() {
		t.Skip("this is the copy started with inherited signals")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := Inherited(t, self, self, "-test.run", pattern, "-test.count=1", "-test.v", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), inheritedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: ") {
		t.Fatalf("%s with SIGINT and SIGHUP ignored and SIGINT, SIGTERM and SIGUSR1 blocked: %v\n%s", pattern, err, out)
	}
}
