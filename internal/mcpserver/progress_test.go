//go:build unix

package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLongCallsSendProgress(t *testing.T) {
	t.Parallel()
	progress := make(chan *mcp.ProgressNotificationParams, 64)
	opts, _ := onEmulator(t)
	opts.ProgressEvery = 10 * time.Millisecond
	ctx := t.Context()
	cs := serveTo(t, opts, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})
	id := create(t, cs, "base")
	// The command runs until the test has seen a progress notification and
	// made the file it waits for (a minute at most).
	const wait = `echo started; for i in $(seq 1200); do [ -e /tmp/go ] && exit 0; sleep 0.05; done; exit 1`
	params := &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"sandbox_id": id, "command": wait, "timeout_seconds": 120}}
	params.SetProgressToken("exec-1")
	var first *mcp.ProgressNotificationParams
	go func() {
		first = <-progress
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "files_write", Arguments: map[string]any{"sandbox_id": id, "path": "/tmp/go", "content": ""}})
	}()
	var x execResult
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("exec: %v %s", err, texts(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &x); err != nil || x.ExitCode != 0 {
		t.Fatalf("exec with a progress token: %s %v (no progress came, or the file was not made)", b, err)
	}
	if first.ProgressToken != "exec-1" || first.Total != 120 || first.Progress <= 0 || !strings.Contains(first.Message, "bytes of output") {
		t.Errorf("progress %+v", first)
	}
	// Without a token, none. (A late notification of the first call, sent
	// as it ended, may still come in: it bears the first call's token.)
	call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "sleep 0.2"}, nil)
	for len(progress) > 0 {
		if p := <-progress; p.ProgressToken != "exec-1" {
			t.Errorf("progress without a token: %+v", p)
		}
	}
}
