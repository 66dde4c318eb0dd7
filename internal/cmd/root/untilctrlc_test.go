//go:build unix

package root

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/testrun"
)

// A command that runs until interrupted ends well at Ctrl-C: exit 0 and
// no error line, what it printed kept (docs/exit-codes.md).
func TestUntilInterruptedCommandsEndWellAtCtrlC(t *testing.T) {
	t.Parallel()
	_, e := fakeManager(t)
	e["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	id := create(t, e)
	cases := []struct {
		name    string
		args    []string
		running func(stdout, stderr string) bool
	}{
		{"files watch", []string{"files", "watch", id, "/tmp"},
			func(_, stderr string) bool { return strings.Contains(stderr, "watching ") }},
		{"metrics --watch", []string{"metrics", id, "--watch", "--interval", "1s"},
			func(stdout, _ string) bool { return strings.HasPrefix(stdout, id+"\t") }},
		{"mcp serve --listen", []string{"mcp", "serve", "--listen", "127.0.0.1:0", "--token", strings.Repeat("t", 40)},
			func(_, stderr string) bool { return strings.Contains(stderr, "Serving MCP on ") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			io, _, _, _ := output.Test(false)
			out, errOut := &testrun.Buffer{}, &testrun.Buffer{}
			io.Out, io.ErrOut = out, errOut
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				deadline := time.Now().Add(30 * time.Second)
				for !tc.running(out.String(), errOut.String()) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				cancel()
			}()
			code := Run(ctx, io, func(k string) string { return e[k] }, tc.args)
			if !tc.running(out.String(), errOut.String()) {
				t.Fatalf("it never ran: exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if code != 0 || strings.Contains(errOut.String(), "error") {
				t.Errorf("Ctrl-C: exit %d, stderr %q; want 0 and no error", code, errOut)
			}
		})
	}
}
