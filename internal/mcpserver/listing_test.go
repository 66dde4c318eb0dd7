package mcpserver_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/mcpserver"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// tool is what a tool is listed with: its arguments, its annotations, the
// fields of its output schema.
type tool struct {
	args                              []string
	readOnly, destructive, idempotent bool
	output                            []string
}

// toolWords are the tools' names of the catalogue's inputs (docs/mcp.md).
var toolWords = map[string]string{"id": "sandbox_id", "timeout": "timeout_seconds", "env": "envs"}

// declaredTools are the tools built from the catalogue's declarations
// (sandboxes.Door), as their declarations say they are listed.
func declaredTools() map[string]tool {
	out := map[string]tool{}
	for _, op := range sandboxes.Catalogue() {
		d := op.Door
		if d == nil || d.Tool == "" || op.Call == nil {
			continue
		}
		w := tool{readOnly: op.ReadOnly, destructive: d.Destructive, idempotent: d.Idempotent}
		for _, in := range op.Inputs {
			if n := toolWords[in.Name]; n != "" {
				w.args = append(w.args, n)
			} else {
				w.args = append(w.args, in.Name)
			}
		}
		rt := reflect.TypeOf(d.Result)
		if rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		for i := range rt.NumField() {
			if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
				w.output = append(w.output, name)
			}
		}
		out[d.Tool] = w
	}
	return out
}

func TestToolsAreListedWithSchemasAndAnnotations(t *testing.T) {
	t.Parallel()
	cs := serve(t, unconfigured())
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	// The tools written by hand; then those built from a declaration.
	want := map[string]tool{
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
		"sandbox_snapshot":    {args: []string{"sandbox_id", "ttl_seconds"}, output: []string{"snapshotID", "sandboxID", "names"}},
		"sandbox_fork":        {args: []string{"sandbox_id", "count", "timeout_seconds"}, output: []string{"sandboxID", "snapshotID", "clones", "failed"}},
		"sandbox_metrics":     {args: []string{"sandbox_id"}, readOnly: true, output: []string{"sandboxID", "state", "cpuUsedPct", "memUsed", "diskTotal"}},
		"process_list":        {args: []string{"sandbox_id"}, readOnly: true, output: []string{"processes"}},
		"process_kill":        {args: []string{"sandbox_id", "pid", "signal"}, destructive: true, idempotent: true, output: []string{"pid", "signal"}},
		"run_code": {args: []string{"sandbox_id", "code", "language", "context_id", "timeout_seconds"}, destructive: true,
			output: []string{"stdout", "stderr", "results", "error", "truncated"}},
		"sandbox_run": {args: []string{"template", "command", "files", "collect", "cwd", "envs", "timeout_seconds"},
			output: []string{"sandboxID", "exitCode", "stdout", "stderr", "files", "killed"}},
	}
	for name, w := range declaredTools() {
		want[name] = w
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
		// MCP's schema of a tool takes objects only, "object" as the type
		// (the official SDKs refuse a listing with another).
		for what, schema := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			if m, _ := schema.(map[string]any); m["type"] != "object" {
				t.Errorf("%s: %s schema of type %v", name, what, m["type"])
			}
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
	if depth["minimum"] != 1.0 || depth["maximum"] != 16.0 || depth["type"] != "integer" {
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

func TestToolsAndReadOnlyChooseTheTools(t *testing.T) {
	t.Parallel()
	opts := unconfigured()
	opts.Tools = []string{"exec", "files_read"}
	if got := toolNames(t, serve(t, opts)); !slices.Equal(got, []string{"exec", "files_read"}) {
		t.Errorf("--tools exec,files_read: %v", got)
	}
	// Which tools are read-only, and which of the lifecycle, the listing
	// above holds; here, that the options choose by it.
	var readOnly, pinnedReadOnly []string
	for _, tl := range mcpserver.Tools() {
		if tl.ReadOnly {
			readOnly = append(readOnly, tl.Name)
			if !tl.Lifecycle {
				pinnedReadOnly = append(pinnedReadOnly, tl.Name)
			}
		}
	}
	slices.Sort(readOnly)
	slices.Sort(pinnedReadOnly)
	opts = unconfigured()
	opts.ReadOnly = true
	if got := toolNames(t, serve(t, opts)); !slices.Equal(got, readOnly) || !slices.Contains(got, "files_read") {
		t.Errorf("--read-only: %v, want %v", got, readOnly)
	}
	opts.Sandbox = "sb-1"
	if got := toolNames(t, serve(t, opts)); !slices.Equal(got, pinnedReadOnly) || slices.Contains(got, "sandbox_list") {
		t.Errorf("--read-only --sandbox: %v, want %v", got, pinnedReadOnly)
	}
}

// A host that connects is told of the tools it is offered, none other.
func TestAPinnedServersInstructionsNameItsToolsOnly(t *testing.T) {
	t.Parallel()
	opts := unconfigured()
	opts.Sandbox = "sb-1"
	ins := serve(t, opts).InitializeResult().Instructions
	for _, tool := range []string{"sandbox_create", "sandbox_kill", "sandbox_run", "sandbox_list"} {
		if strings.Contains(ins, tool) {
			t.Errorf("a pinned server's instructions name %s: %q", tool, ins)
		}
	}
	if !strings.Contains(ins, "exec") {
		t.Errorf("a pinned server's instructions do not name exec: %q", ins)
	}
}
