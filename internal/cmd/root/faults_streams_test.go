//go:build unix

package root

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/faultproxy"
)

const (
	envdPath   = `^/kruise/[^/]+/49983/`
	startPath  = envdPath + `process\.Process/Start$`
	filesPath  = envdPath + `files$`
	brokeError = `^error\[E5001\]: .*(broke|reset|closed|EOF)`
)

// testIdle is the idle bound of the stalled-stream cases: short enough
// that waiting it out is quick (the cases wait side by side), long enough
// that a quiet stream's keepalives (every third of it) are told from a
// stall under -race on a machine two CPU hogs and the stories keep busy,
// where 4 s was not.
var testIdle = env{"ABX_ALICLOUD_CONTAINER_IDLE_TIMEOUT": "10s"}

// A connection that breaks under an envd call is the service's failure:
// E5001, exit 1 (125 for the commands that pass a status through), never
// "interrupted".
func TestFaultsResetsAndCutStreams(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	reset := func(path string) []faultproxy.Rule {
		return []faultproxy.Rule{{Path: path, Fault: faultproxy.Reset()}}
	}
	out := t.TempDir()
	cases := []faultCase{
		{name: "exec start reset", args: []string{"exec", "ID", "--", "echo hi"}, rules: reset(startPath), want: 125, wantErr: brokeError},
		// A cut stream is taken up again (docs/exec.md, "When the stream is
		// cut"): the command's end is still abx's.
		{name: "exec stream cut", args: []string{"exec", "ID", "--", "for i in $(seq 1 200); do echo line $i; sleep 0.01; done"},
			rules: []faultproxy.Rule{{Path: startPath, Fault: faultproxy.Cut(300)}}, want: 0,
			check: func(t *testing.T, _ *faulty, r result) {
				if !strings.HasSuffix(r.stdout, "line 200\n") || !strings.Contains(r.stderr, "was cut after") {
					t.Errorf("stdout ends %q; stderr %q", r.stdout[max(0, len(r.stdout)-40):], r.stderr)
				}
			}},
		{name: "files ls reset", args: []string{"files", "ls", "ID", "/"}, rules: reset(envdPath + `filesystem\.Filesystem/ListDir$`), want: 1, wantErr: brokeError},
		{name: "files stat reset", args: []string{"files", "stat", "ID", "/"}, rules: reset(envdPath + `filesystem\.Filesystem/Stat$`), want: 1, wantErr: brokeError},
		{name: "ps reset", args: []string{"ps", "ID"}, rules: reset(envdPath + `process\.Process/List$`), want: 1, wantErr: brokeError},
		{name: "ps kill reset", args: []string{"ps", "kill", "ID", "1"}, rules: reset(envdPath + `process\.Process/SendSignal$`), want: 1, wantErr: brokeError},
		{name: "files read cut", args: []string{"files", "read", "ID", "/home/user/big", "--out", filepath.Join(out, "big")},
			rules: []faultproxy.Rule{{Method: "GET", Path: filesPath, Fault: faultproxy.Cut(1000)}}, want: 1, wantErr: brokeError,
			check: func(t *testing.T, _ *faulty, _ result) {
				if _, err := os.Stat(filepath.Join(out, "big")); !os.IsNotExist(err) {
					t.Errorf("a cut download left %s (%v)", filepath.Join(out, "big"), err)
				}
				if left, _ := os.ReadDir(out); len(left) != 0 {
					t.Errorf("left behind: %v", left)
				}
			}},
	}
	r := run(t, f.env, false, "exec", f.id, "--", "head -c 200000 /dev/zero > /home/user/big")
	if r.code != 0 {
		t.Fatalf("set-up: %d %s", r.code, r.stderr)
	}
	runFaults(t, f, cases)
}

// The code interpreter's stream: cut, it is the service's failure; stalled,
// it is given up after --idle-timeout, and a quiet cell is kept alive by the
// interpreter's keepalive lines.
func TestFaultsCodeInterpreterStream(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "code-interpreter")
	execute := `^/kruise/[^/]+/49999/execute$`
	idle := testIdle
	runFaults(t, f, []faultCase{
		{name: "reset", args: []string{"run-code", "ID", "print(1)"}, want: 125, wantErr: brokeError,
			rules: []faultproxy.Rule{{Path: execute, Fault: faultproxy.Reset()}}},
		{name: "cut", args: []string{"run-code", "ID", "for i in range(100): print(i)"}, want: 125, wantErr: brokeError,
			rules: []faultproxy.Rule{{Path: execute, Fault: faultproxy.Cut(20)}}},
		{name: "stalled", args: []string{"run-code", "ID", "import time; time.sleep(300)"}, env: idle,
			want: 125, wantErr: `^error\[E5001\]: .*the sandbox sent nothing for 10s`,
			rules: []faultproxy.Rule{{Path: execute, Fault: faultproxy.Stall(0)}}},
	})
}

// A stream that stops sending is given up after --idle-timeout, with or
// without a --timeout or --request-timeout of the command's own. Each case
// waits out the bound, so each has a cluster of its own and they run side
// by side.
func TestFaultsStalledStreams(t *testing.T) {
	t.Parallel()
	idle := testIdle
	stalled := `^error\[E5001\]: the sandbox sent nothing for 10s`
	out := t.TempDir()
	big := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(big, make([]byte, 32<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []faultCase{
		{name: "exec", args: []string{"exec", "ID", "--", "echo started; sleep 300"}, env: idle,
			rules: []faultproxy.Rule{{Path: startPath, Fault: faultproxy.Stall(40)}}, want: 125, wantErr: stalled},
		{name: "exec answering nothing", args: []string{"exec", "ID", "--", "true"}, env: idle,
			rules: []faultproxy.Rule{{Path: startPath, Fault: faultproxy.StallBefore()}}, want: 125, wantErr: stalled},
		{name: "ps attach", args: []string{"ps", "attach", "ID", "PID"}, env: idle,
			rules: []faultproxy.Rule{{Path: envdPath + `process\.Process/Connect$`, Fault: faultproxy.Stall(10)}}, want: 125, wantErr: stalled},
		// The request timeout bounds the wait for the answer's headers, not
		// its body: half the idle bound here, and long enough that a busy
		// machine's headers come within it.
		{name: "files read with a request timeout", args: []string{"files", "read", "ID", "/home/user/big", "--out", filepath.Join(out, "big"), "--request-timeout", "6s"},
			env: env{"ABX_ALICLOUD_CONTAINER_IDLE_TIMEOUT": "12s"}, rules: []faultproxy.Rule{{Method: "GET", Path: filesPath, Fault: faultproxy.Stall(1000)}},
			want: 1, wantErr: `^error\[E5001\]: the sandbox sent nothing for 12s`,
			check: func(t *testing.T, _ *faulty, _ result) {
				if left, _ := os.ReadDir(out); len(left) != 0 {
					t.Errorf("a stalled download left %v", left)
				}
			}},
		// A server that stops taking an upload's body stalls it as well.
		{name: "files write to a server that stops reading", args: []string{"files", "write", "ID", "/home/user/up.bin", "--from", big},
			env: idle, want: 1, wantErr: stalled,
			rules: []faultproxy.Rule{{Method: "POST", Path: filesPath, Fault: faultproxy.Hold(25 * time.Second)}}},
		// A quiet command is not a stalled stream: envd's keepalives keep it.
		{name: "quiet command", args: []string{"exec", "ID", "--", "sleep 12; echo done"}, env: idle,
			check: func(t *testing.T, _ *faulty, r result) {
				if r.stdout != "done\n" {
					t.Errorf("stdout %q", r.stdout)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFaulty(t, "base")
			c.before = [][]string{{"exec", "ID", "--", "head -c 200000 /dev/zero > /home/user/big"}}
			if c.name == "ps attach" {
				// A process to attach to; its PID takes the place of "PID".
				r := run(t, f.env, false, "exec", f.id, "--background", "--", "sleep 300")
				if r.code != 0 {
					t.Fatalf("set-up: %d %s", r.code, r.stderr)
				}
				c.args = slices.Clone(c.args)
				c.args[slices.Index(c.args, "PID")] = strings.TrimSpace(r.stdout)
			}
			runFault(t, f, c)
		})
	}
}
