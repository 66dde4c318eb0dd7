//go:build unix

package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/emulator/emutest"
)

// connect serves `abx mcp serve` over the SDK's in-memory transport with
// this environment and returns a client session of it.
func connect(t *testing.T, env map[string]string, maxOutput int) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, env, func(o *ServeOptions) { o.MaxOutput = maxOutput })
}

// connectWith is connect with the options set by set.
func connectWith(t *testing.T, env map[string]string, set func(*ServeOptions)) *mcp.ClientSession {
	t.Helper()
	f, _ := factorytest.NewFactory(false, env, "")
	st, ct := mcp.NewInMemoryTransports()
	opts := &ServeOptions{IO: f.IO, Factory: f, Transport: st}
	set(opts)
	ctx := t.Context()
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return cs
}

// call calls a tool and decodes its structured result into out (nil:
// none).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	if out != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

func texts(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mustFail says a result is a tool error holding want.
func mustFail(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error with %q, got %s", want, texts(res))
	}
	if got := texts(res); !strings.Contains(got, want) {
		t.Fatalf("tool error %q does not hold %q", got, want)
	}
}

func TestToolsAreListedWithSchemasAndAnnotations(t *testing.T) {
	t.Parallel()
	cs := connect(t, nil, 0)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	want := map[string]struct {
		args                              []string
		readOnly, destructive, idempotent bool
		output                            []string
	}{
		"sandbox_create": {args: []string{"template", "timeout_seconds", "metadata", "envs"}, output: []string{"sandboxID", "templateID", "state"}},
		"sandbox_list":   {args: []string{"state", "metadata"}, readOnly: true, output: []string{"sandboxes"}},
		"sandbox_info":   {args: []string{"sandbox_id"}, readOnly: true, output: []string{"sandboxID", "endAt"}},
		"sandbox_kill":   {args: []string{"sandbox_id"}, destructive: true, idempotent: true, output: []string{"sandboxID"}},
		"exec": {args: []string{"sandbox_id", "command", "cwd", "envs", "timeout_seconds", "background"}, destructive: true,
			output: []string{"exitCode", "stdout", "stderr", "truncated"}},
		"files_read":          {args: []string{"sandbox_id", "path", "max_bytes"}, readOnly: true, output: []string{"truncated", "mimeType"}},
		"files_write":         {args: []string{"sandbox_id", "path", "content", "content_base64", "mode"}, destructive: true, idempotent: true, output: []string{"bytes"}},
		"files_list":          {args: []string{"sandbox_id", "path", "depth"}, readOnly: true, output: []string{"entries", "truncated"}},
		"sandbox_set_timeout": {args: []string{"sandbox_id", "timeout_seconds"}, output: []string{"sandboxID", "timeout"}},
		"sandbox_pause":       {args: []string{"sandbox_id"}, idempotent: true, output: []string{"sandboxID", "state"}},
		"sandbox_resume":      {args: []string{"sandbox_id"}, output: []string{"sandboxID", "state"}},
		"sandbox_url":         {args: []string{"sandbox_id", "port"}, readOnly: true, output: []string{"url", "port"}},
		"sandbox_metrics":     {args: []string{"sandbox_id"}, readOnly: true, output: []string{"sandboxID", "state", "cpuUsedPct", "memUsed", "diskTotal"}},
		"process_list":        {args: []string{"sandbox_id"}, readOnly: true, output: []string{"processes"}},
		"process_kill":        {args: []string{"sandbox_id", "pid", "signal"}, destructive: true, idempotent: true, output: []string{"pid", "signal"}},
		"run_code": {args: []string{"sandbox_id", "code", "language", "context_id", "timeout_seconds"}, destructive: true,
			output: []string{"stdout", "stderr", "results", "error", "truncated"}},
		"sandbox_run": {args: []string{"template", "command", "files", "collect", "cwd", "envs", "timeout_seconds"},
			output: []string{"sandboxID", "exitCode", "stdout", "stderr", "files", "killed"}},
	}
	if len(tools) != len(want) {
		t.Errorf("tools %v, want %d", tools, len(want))
	}
	for name, w := range want {
		tl := tools[name]
		if tl == nil {
			t.Errorf("no tool %s", name)
			continue
		}
		props := func(schema any) map[string]any {
			m, _ := schema.(map[string]any)
			p, _ := m["properties"].(map[string]any)
			return p
		}
		in := props(tl.InputSchema)
		if len(in) != len(w.args) {
			t.Errorf("%s: arguments %v, want %v", name, in, w.args)
		}
		for _, a := range w.args {
			if in[a] == nil {
				t.Errorf("%s: no argument %s", name, a)
			}
		}
		for _, o := range w.output {
			if props(tl.OutputSchema)[o] == nil {
				t.Errorf("%s: output schema has no %s", name, o)
			}
		}
		a := tl.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", name)
			continue
		}
		destructive := a.DestructiveHint == nil || *a.DestructiveHint
		if a.ReadOnlyHint != w.readOnly || (!w.readOnly && destructive != w.destructive) || a.IdempotentHint != w.idempotent {
			t.Errorf("%s: annotations %+v", name, a)
		}
	}
	if req := tools["exec"].InputSchema.(map[string]any)["required"]; !sameSet(req, "sandbox_id", "command") {
		t.Errorf("exec requires %v", req)
	}
	// The depth's range is the listing's bound, said where a model reads it.
	depth, _ := tools["files_list"].InputSchema.(map[string]any)["properties"].(map[string]any)["depth"].(map[string]any)
	if d, _ := depth["description"].(string); !strings.Contains(d, "(1 to 16, default 1)") || depth["type"] != "integer" {
		t.Errorf("files_list's depth %v", depth)
	}
}

func sameSet(v any, want ...string) bool {
	l, _ := v.([]any)
	if len(l) != len(want) {
		return false
	}
	for i := range l {
		if l[i] != want[i] {
			return false
		}
	}
	return true
}

func TestMissingConfigurationIsAToolErrorSayingWhatToSet(t *testing.T) {
	t.Parallel()
	cs := connect(t, nil, 0)
	mustFail(t, call(t, cs, "sandbox_list", nil, nil), "ABX_PROVIDER")
	mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": "sb-1", "command": "true"}, nil), "ABX_PROVIDER")
	// A provider without its settings: the error names the variable.
	cs = connect(t, map[string]string{"ABX_PROVIDER": "alicloud-container"}, 0)
	mustFail(t, call(t, cs, "sandbox_list", nil, nil), "ABX_ALICLOUD_CONTAINER_")
}

type execResult struct {
	ExitCode  int    `json:"exitCode"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	Truncated bool   `json:"truncated"`
}

func TestToolsOnTheEmulator(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t)
	// The private protocol on the fake's own origin: no name to resolve.
	env["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	cs := connect(t, env, 4096)

	var sb struct {
		SandboxID string            `json:"sandboxID"`
		State     string            `json:"state"`
		Metadata  map[string]string `json:"metadata"`
	}
	res := call(t, cs, "sandbox_create", map[string]any{"template": "base", "metadata": map[string]string{"owner": "mcp"}}, &sb)
	if res.IsError || sb.SandboxID == "" || sb.Metadata["owner"] != "mcp" {
		t.Fatalf("create: %s %+v", texts(res), sb)
	}
	id := sb.SandboxID

	var list struct {
		Sandboxes []struct {
			SandboxID string `json:"sandboxID"`
		} `json:"sandboxes"`
	}
	res = call(t, cs, "sandbox_list", map[string]any{"metadata": map[string]string{"owner": "mcp"}}, &list)
	if res.IsError || len(list.Sandboxes) != 1 || list.Sandboxes[0].SandboxID != id {
		t.Fatalf("list: %s %+v", texts(res), list)
	}

	t.Run("exec", func(t *testing.T) {
		var x execResult
		res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "echo out; echo err >&2; exit 3"}, &x)
		if res.IsError || x.ExitCode != 3 || x.Stdout != "out\n" || x.Stderr != "err\n" || x.Truncated {
			t.Fatalf("exec: %s %+v", texts(res), x)
		}
		if !strings.Contains(texts(res), "exit code 3") {
			t.Errorf("text %q", texts(res))
		}
		res = call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "echo \"$A\"; pwd", "cwd": "/tmp",
			"envs": map[string]string{"A": "from envs"}}, &x)
		if res.IsError || x.ExitCode != 0 || x.Stdout != "from envs\n/tmp\n" {
			t.Fatalf("exec with envs and cwd: %s %+v", texts(res), x)
		}
	})

	t.Run("capped", func(t *testing.T) {
		var x execResult
		res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "head -c 100000 /dev/zero | tr '\\0' a"}, &x)
		if res.IsError || !x.Truncated || len(x.Stdout) != 4096 || x.ExitCode != 0 {
			t.Fatalf("capped: truncated %v, %d bytes, exit %d: %s", x.Truncated, len(x.Stdout), x.ExitCode, texts(res)[:100])
		}
	})

	t.Run("timeout", func(t *testing.T) {
		res := call(t, cs, "exec", map[string]any{"sandbox_id": id,
			"command": "echo begun; sleep 120 & echo $! > /tmp/timeout.pid; wait", "timeout_seconds": 1}, nil)
		mustFail(t, res, "E6001")
		if !strings.Contains(texts(res), "begun") {
			t.Errorf("timeout error %q without the output", texts(res))
		}
		deadline := time.Now().Add(30 * time.Second)
		for probe(t, cs, id, "/tmp/timeout.pid") != "gone" {
			if time.Now().After(deadline) {
				t.Fatal("the command still runs after its timeout")
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		// The host cancels the call: the remote command is stopped.
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
				"sandbox_id": id, "command": "sleep 120 & echo $! > /tmp/sleep.pid; wait"}})
			done <- err
		}()
		alive := func() string { return probe(t, cs, id, "/tmp/sleep.pid") }
		deadline := time.Now().Add(30 * time.Second)
		for alive() != "alive" {
			if time.Now().After(deadline) {
				t.Fatal("the command did not start")
			}
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
		if err := <-done; err == nil {
			t.Error("a cancelled call answered")
		}
		for alive() != "gone" {
			if time.Now().After(deadline) {
				t.Fatal("the command still runs after the call was cancelled")
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("files", func(t *testing.T) {
		var w struct {
			Bytes int `json:"bytes"`
		}
		res := call(t, cs, "files_write", map[string]any{"sandbox_id": id, "path": "dir/note.txt", "content": "héllo\n"}, &w)
		if res.IsError || w.Bytes != len("héllo\n") {
			t.Fatalf("write: %s", texts(res))
		}
		var r struct {
			Binary, Truncated bool
			Bytes             int
			MIMEType          string `json:"mimeType"`
		}
		res = call(t, cs, "files_read", map[string]any{"sandbox_id": id, "path": "dir/note.txt"}, &r)
		if res.IsError || texts(res) != "héllo\n" || r.Binary || !strings.HasPrefix(r.MIMEType, "text/plain") {
			t.Fatalf("read text: %s %+v", texts(res), r)
		}

		blob := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0xff}
		res = call(t, cs, "files_write", map[string]any{"sandbox_id": id, "path": "/tmp/x.png",
			"content_base64": base64.StdEncoding.EncodeToString(blob)}, nil)
		if res.IsError {
			t.Fatalf("write binary: %s", texts(res))
		}
		res = call(t, cs, "files_read", map[string]any{"sandbox_id": id, "path": "/tmp/x.png"}, &r)
		if res.IsError || !r.Binary || r.MIMEType != "image/png" || len(res.Content) != 1 {
			t.Fatalf("read binary: %s %+v", texts(res), r)
		}
		er, ok := res.Content[0].(*mcp.EmbeddedResource)
		if !ok || !bytes.Equal(er.Resource.Blob, blob) || er.Resource.MIMEType != "image/png" {
			t.Fatalf("binary content %#v", res.Content[0])
		}

		res = call(t, cs, "files_read", map[string]any{"sandbox_id": id, "path": "dir/note.txt", "max_bytes": 2}, &r)
		if res.IsError || !r.Truncated || r.Bytes != 2 || !strings.HasPrefix(texts(res), "h") {
			t.Fatalf("read capped: %s %+v", texts(res), r)
		}
		mustFail(t, call(t, cs, "files_read", map[string]any{"sandbox_id": id, "path": "/nope"}, nil), "E3001")
		mustFail(t, call(t, cs, "files_write", map[string]any{"sandbox_id": id, "path": "a"}, nil), "E1002")
	})

	mustFail(t, call(t, cs, "sandbox_info", map[string]any{"sandbox_id": "missing-sandbox"}, nil), "E3001")
	mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": "missing-sandbox", "command": "true"}, nil), "E3001")
	mustFail(t, call(t, cs, "sandbox_info", map[string]any{"sandbox_id": "bad/id"}, nil), "E1002")

	res = call(t, cs, "sandbox_kill", map[string]any{"sandbox_id": id}, nil)
	if res.IsError {
		t.Fatalf("kill: %s", texts(res))
	}
	mustFail(t, call(t, cs, "sandbox_info", map[string]any{"sandbox_id": id}, nil), "E3001")
	for _, c := range []string{emutest.Key} {
		if strings.Contains(texts(res), c) {
			t.Errorf("a result holds the key")
		}
	}
}

// probe tells whether the process whose pid is in pidfile runs: alive,
// gone, or none (no pid yet).
func probe(t *testing.T, cs *mcp.ClientSession, id, pidfile string) string {
	t.Helper()
	var x execResult
	res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "test -s " + pidfile +
		" || { echo none; exit; }; kill -0 $(cat " + pidfile + ") 2>/dev/null && echo alive || echo gone"}, &x)
	if res.IsError {
		t.Fatalf("probe: %s", texts(res))
	}
	return strings.TrimSpace(x.Stdout)
}

func TestTheKeyNeverAppearsInAToolError(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t)
	env["ABX_ALICLOUD_CONTAINER_API_KEY"] = "sk-wrong-key-0123456789"
	cs := connect(t, env, 0)
	res := call(t, cs, "sandbox_list", nil, nil)
	mustFail(t, res, "E4001")
	if strings.Contains(texts(res), "sk-wrong-key-0123456789") {
		t.Errorf("the key is in %q", texts(res))
	}
}
