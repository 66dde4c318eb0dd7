//go:build unix

package root

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/testrun"
)

// Ctrl-C stops what runs: the remote command and everything it started,
// a stdin reader, an upload (leaving nothing behind), exiting 130 rather
// than waiting for them (the hang guard is well short of the sleeps).
func TestFaultsCtrlC(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	blocked, _ := io.Pipe() // a terminal nobody types into
	// Durations no other test uses: this machine's other sandboxes may
	// share a view of processes.
	mark := fmt.Sprintf("%d.%06d", 300+rand.IntN(100), rand.IntN(1_000_000))
	cases := []faultCase{
		{name: "exec and its children", args: []string{"exec", "ID", "--", "sleep " + mark + " & sleep " + mark + "1; echo done"},
			interrupt: startPath, want: 130, wantErr: `^error\[E7001\]`,
			check: func(t *testing.T, f *faulty, r result) {
				if strings.Contains(r.stdout, "done") {
					t.Errorf("the command went on: %q", r.stdout)
				}
				left := run(t, f.env, false, "exec", f.id, "--", "pgrep -f 'sleep "+strings.ReplaceAll(mark, ".", "[.]")+"' || true")
				if strings.TrimSpace(left.stdout) != "" {
					t.Errorf("left running in the sandbox: %q", left.stdout)
				}
			}},
		{name: "exec -i with a blocked stdin", args: []string{"exec", "-i", "ID", "--", "cat"}, stdin: blocked,
			interrupt: startPath, want: 130, wantErr: `^error\[E7001\]`},
		{name: "files write from a blocked stdin", args: []string{"files", "write", "ID", "/home/user/partial.txt"}, stdin: blocked,
			interrupt: `^/kruise/api/sandboxes/`, want: 130, wantErr: `^error\[E7001\]`,
			check: func(t *testing.T, f *faulty, _ result) {
				ls := run(t, f.env, false, "files", "ls", f.id, "/home/user")
				if strings.Contains(ls.stdout, "partial") {
					t.Errorf("an interrupted upload left %q", ls.stdout)
				}
			}},
		{name: "upload cut short", args: []string{"files", "write", "ID", "/home/user/half.txt"},
			stdin:     io.MultiReader(bytes.NewReader(make([]byte, 256<<10)), blocked),
			interrupt: filesPath, want: 130, wantErr: `^error\[E7001\]`,
			check: func(t *testing.T, f *faulty, _ result) {
				ls := run(t, f.env, false, "files", "ls", f.id, "/home/user")
				if strings.Contains(ls.stdout, "half") {
					t.Errorf("an interrupted upload left %q", ls.stdout)
				}
			}},
		{name: "run-code from a blocked stdin", args: []string{"run-code", "ID", "-"}, stdin: blocked,
			interrupt: "*", want: 130, wantErr: `^error\[E7001\]`},
	}
	runFaults(t, f, cases)
}

// Ctrl-C at kill --all's question stops there: nothing is killed.
func TestFaultsCtrlCAtTheConfirmation(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "base")
	blocked, _ := io.Pipe()
	streams, _, _, _ := output.Test(true)
	errOut := &testrun.Buffer{}
	streams.In, streams.ErrOut = blocked, errOut
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		deadline := time.Now().Add(2 * time.Minute) // a hang guard
		for !strings.Contains(errOut.String(), "[y/N]") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	e := f.env
	code := Run(ctx, streams, func(k string) string { return e[k] }, []string{"kill", "--all"})
	if code != 130 || !strings.Contains(errOut.String(), "interrupted: nothing was killed") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if n := f.proxy.Count("DELETE", ""); n != 0 || len(f.srv.Sandboxes()) != 1 {
		t.Errorf("%d DELETEs, %d sandboxes left", n, len(f.srv.Sandboxes()))
	}
}
