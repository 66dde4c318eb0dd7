//go:build unix

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmd/factory/factorytest"
	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/mcpserver"
)

// emulator returns the environment of a fresh emulated cluster.
func emulator(t *testing.T) map[string]string {
	t.Helper()
	_, env := emutest.Cluster(t)
	env["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	return env
}

// create creates a sandbox from template and returns its ID.
func create(t *testing.T, cs *mcp.ClientSession, template string) string {
	t.Helper()
	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	if res := call(t, cs, "sandbox_create", map[string]any{"template": template}, &sb); res.IsError || sb.SandboxID == "" {
		t.Fatalf("create: %s", texts(res))
	}
	return sb.SandboxID
}

// toolNames lists the tools a session offers.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

func TestLifecycleProcessAndListToolsOnTheEmulator(t *testing.T) {
	t.Parallel()
	cs := connect(t, emulator(t), 0)
	id := create(t, cs, "base")

	t.Run("set_timeout", func(t *testing.T) {
		var ch struct {
			SandboxID string `json:"sandboxID"`
			Timeout   int    `json:"timeout"`
		}
		res := call(t, cs, "sandbox_set_timeout", map[string]any{"sandbox_id": id, "timeout_seconds": 3600}, &ch)
		if res.IsError || ch.SandboxID != id || ch.Timeout != 3600 {
			t.Fatalf("set_timeout: %s %+v", texts(res), ch)
		}
		var info struct {
			EndAt time.Time `json:"endAt"`
		}
		call(t, cs, "sandbox_info", map[string]any{"sandbox_id": id}, &info)
		if left := time.Until(info.EndAt); left < 50*time.Minute || left > 61*time.Minute {
			t.Errorf("ends in %s, want about an hour", left)
		}
		mustFail(t, call(t, cs, "sandbox_set_timeout", map[string]any{"sandbox_id": id, "timeout_seconds": 0}, nil), "E1002")
		mustFail(t, call(t, cs, "sandbox_set_timeout", map[string]any{"sandbox_id": "missing-sandbox", "timeout_seconds": 60}, nil), "E3001")
	})

	t.Run("url", func(t *testing.T) {
		var u struct {
			URL  string `json:"url"`
			Port int    `json:"port"`
		}
		res := call(t, cs, "sandbox_url", map[string]any{"sandbox_id": id, "port": 8080}, &u)
		if res.IsError || u.Port != 8080 || !strings.Contains(u.URL, id) || !strings.HasSuffix(u.URL, "8080") || texts(res) != u.URL {
			t.Fatalf("url: %s %+v", texts(res), u)
		}
		mustFail(t, call(t, cs, "sandbox_url", map[string]any{"sandbox_id": id, "port": 70000}, nil), "E1002")
	})

	t.Run("processes", func(t *testing.T) {
		var bg struct {
			PID uint32 `json:"pid"`
		}
		if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "sleep 300", "background": true}, &bg); res.IsError || bg.PID == 0 {
			t.Fatalf("background: %s", texts(res))
		}
		type process struct {
			PID  uint32   `json:"pid"`
			Cmd  string   `json:"cmd"`
			Args []string `json:"args"`
		}
		var ps struct {
			Processes []process `json:"processes"`
		}
		res := call(t, cs, "process_list", map[string]any{"sandbox_id": id}, &ps)
		i := slices.IndexFunc(ps.Processes, func(p process) bool {
			return p.PID == bg.PID
		})
		if res.IsError || i < 0 || !strings.Contains(texts(res), strconv.FormatUint(uint64(bg.PID), 10)) {
			t.Fatalf("process_list: %s %+v", texts(res), ps)
		}
		// abx's wrapper is shown as the shell line it runs.
		if got := strings.Join(append([]string{ps.Processes[i].Cmd}, ps.Processes[i].Args...), " "); !strings.Contains(got, "sleep 300") {
			t.Errorf("the background command shows as %q", got)
		}

		mustFail(t, call(t, cs, "process_kill", map[string]any{"sandbox_id": id, "pid": bg.PID, "signal": "HUP"}, nil), "E1002")
		var k struct {
			Signal string `json:"signal"`
		}
		res = call(t, cs, "process_kill", map[string]any{"sandbox_id": id, "pid": bg.PID, "signal": "KILL"}, &k)
		if res.IsError || k.Signal != "SIGKILL" {
			t.Fatalf("process_kill: %s %+v", texts(res), k)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			call(t, cs, "process_list", map[string]any{"sandbox_id": id}, &ps)
			if !slices.ContainsFunc(ps.Processes, func(p process) bool {
				return p.PID == bg.PID
			}) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the process is still listed after SIGKILL")
			}
			time.Sleep(50 * time.Millisecond)
		}
		mustFail(t, call(t, cs, "process_kill", map[string]any{"sandbox_id": id, "pid": bg.PID}, nil), "E3001")
		mustFail(t, call(t, cs, "process_list", map[string]any{"sandbox_id": "missing-sandbox"}, nil), "E3001")
	})

	// files_write gives the file the bits mode names, so that a program
	// written runs; without mode a file replaced keeps its own.
	t.Run("files_write mode", func(t *testing.T) {
		script := map[string]any{"sandbox_id": id, "path": "bin/hi.sh", "content": "#!/bin/sh\necho hi\n", "mode": "755"}
		if res := call(t, cs, "files_write", script, nil); res.IsError {
			t.Fatalf("write: %s", texts(res))
		}
		var x struct {
			ExitCode int    `json:"exitCode"`
			Stdout   string `json:"stdout"`
		}
		if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "./bin/hi.sh"}, &x); res.IsError || x.ExitCode != 0 || x.Stdout != "hi\n" {
			t.Fatalf("exec: %s %+v", texts(res), x)
		}
		delete(script, "mode")
		if res := call(t, cs, "files_write", script, nil); res.IsError {
			t.Fatalf("write: %s", texts(res))
		}
		if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "ls -l bin/hi.sh | cut -c1-10"}, &x); res.IsError || x.Stdout != "-rwxr-xr-x\n" {
			t.Fatalf("after a write without mode: %s %+v", texts(res), x)
		}
		script["mode"] = "4755"
		mustFail(t, call(t, cs, "files_write", script, nil), "E1002")
	})

	t.Run("files_list", func(t *testing.T) {
		for _, p := range []string{"tree/a.txt", "tree/sub/b.txt"} {
			if res := call(t, cs, "files_write", map[string]any{"sandbox_id": id, "path": p, "content": "x"}, nil); res.IsError {
				t.Fatalf("write: %s", texts(res))
			}
		}
		type entries struct {
			Entries []struct {
				Name string `json:"name"`
				Path string `json:"path"`
				Type string `json:"type"`
				Size int64  `json:"size"`
			} `json:"entries"`
			Truncated bool `json:"truncated"`
		}
		var l entries
		res := call(t, cs, "files_list", map[string]any{"sandbox_id": id, "path": "tree"}, &l)
		if res.IsError || len(l.Entries) != 2 || l.Truncated {
			t.Fatalf("files_list: %s %+v", texts(res), l)
		}
		if !strings.Contains(texts(res), "a.txt file 1") || !strings.Contains(texts(res), "sub/ dir") {
			t.Errorf("text %q", texts(res))
		}
		res = call(t, cs, "files_list", map[string]any{"sandbox_id": id, "path": "tree", "depth": 2}, &l)
		if res.IsError || len(l.Entries) != 3 || !strings.Contains(texts(res), "/tree/sub/b.txt") {
			t.Fatalf("files_list depth 2: %s %+v", texts(res), l)
		}
		mustFail(t, call(t, cs, "files_list", map[string]any{"sandbox_id": id, "path": "/nope"}, nil), "E3001")
		mustFail(t, call(t, cs, "files_list", map[string]any{"sandbox_id": id, "depth": 99}, nil), "E1002")
		// The listing's bound, as abx files ls --depth words it: -1 must
		// not reach envd's unsigned depth as the whole tree.
		for _, d := range []int{-1, 17} {
			mustFail(t, call(t, cs, "files_list", map[string]any{"sandbox_id": id, "depth": d}, nil),
				"invalid depth "+strconv.Itoa(d)+": must be between 1 and 16")
		}
	})

	t.Run("metrics", func(t *testing.T) {
		var m struct {
			SandboxID string  `json:"sandboxID"`
			State     string  `json:"state"`
			CPUCount  int     `json:"cpuCount"`
			CPU       float64 `json:"cpuUsedPct"`
			MemUsed   int64   `json:"memUsed"`
			MemTotal  int64   `json:"memTotal"`
			DiskTotal int64   `json:"diskTotal"`
		}
		res := call(t, cs, "sandbox_metrics", map[string]any{"sandbox_id": id}, &m)
		if res.IsError || m.SandboxID != id || m.State != "running" || m.CPUCount < 1 || m.CPU < 0 || m.CPU > 100 ||
			m.MemUsed <= 0 || m.MemUsed > m.MemTotal || m.DiskTotal <= 0 || !strings.Contains(texts(res), "CPUs") {
			t.Fatalf("metrics: %s %+v", texts(res), m)
		}
		mustFail(t, call(t, cs, "sandbox_metrics", map[string]any{"sandbox_id": "missing-sandbox"}, nil), "E3001")
	})

	t.Run("pause_resume", func(t *testing.T) {
		var ch struct {
			State string `json:"state"`
		}
		if res := call(t, cs, "sandbox_pause", map[string]any{"sandbox_id": id}, &ch); res.IsError || ch.State != "paused" {
			t.Fatalf("pause: %s", texts(res))
		}
		var info struct {
			State string `json:"state"`
		}
		if call(t, cs, "sandbox_info", map[string]any{"sandbox_id": id}, &info); info.State != "paused" {
			t.Errorf("after pause: %s", info.State)
		}
		mustFail(t, call(t, cs, "sandbox_metrics", map[string]any{"sandbox_id": id}, nil), "E2001")
		// Every tool inside a paused sandbox says the same, with the tool
		// that resumes it rather than a command line.
		for tool, args := range map[string]map[string]any{
			"sandbox_metrics": {"sandbox_id": id},
			"exec":            {"sandbox_id": id, "command": "true"},
			"files_list":      {"sandbox_id": id, "path": "."},
		} {
			res := call(t, cs, tool, args, nil)
			mustFail(t, res, "E2001: sandbox "+id+" is paused: nothing inside it answers until it is resumed (resume it first with sandbox_resume)")
		}
		if res := call(t, cs, "sandbox_resume", map[string]any{"sandbox_id": id}, &ch); res.IsError || ch.State != "running" {
			t.Fatalf("resume: %s", texts(res))
		}
		var x execResult
		if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "echo back"}, &x); res.IsError || x.Stdout != "back\n" {
			t.Fatalf("exec after resume: %s", texts(res))
		}
		mustFail(t, call(t, cs, "sandbox_pause", map[string]any{"sandbox_id": "missing-sandbox"}, nil), "E3001")
		mustFail(t, call(t, cs, "sandbox_resume", map[string]any{"sandbox_id": "missing-sandbox"}, nil), "E3001")
	})
}

// dotPNG displays a 1x1 PNG through IPython's display protocol, with no
// library beyond the standard one.
const dotPNG = `import struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

class Dot:
    def _repr_png_(self):
        ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")

display(Dot())
print("shown")`

func TestRunCodeOnTheEmulator(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the emulator has no code interpreter")
	}
	cs := connect(t, emulator(t), 0)
	id := create(t, cs, "code-interpreter")

	type runResult struct {
		Stdout  string `json:"stdout"`
		Results []struct {
			IsMainResult bool     `json:"isMainResult"`
			Text         string   `json:"text"`
			Formats      []string `json:"formats"`
		} `json:"results"`
		Error *struct {
			Name      string `json:"name"`
			Traceback string `json:"traceback"`
		} `json:"error"`
	}
	var r runResult
	res := call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "x = 6 * 7\nprint('set')"}, &r)
	if res.IsError || r.Stdout != "set\n" {
		t.Fatalf("run_code: %s %+v", texts(res), r)
	}
	// The variable lives on in the same (default) context.
	res = call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "x", "language": "python"}, &r)
	if res.IsError || len(r.Results) != 1 || !r.Results[0].IsMainResult || r.Results[0].Text != "42" || texts(res) != "42" {
		t.Fatalf("state: %s %+v", texts(res), r)
	}

	res = call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": dotPNG}, &r)
	if res.IsError || len(r.Results) != 1 || !slices.Contains(r.Results[0].Formats, "png") {
		t.Fatalf("image: %s %+v", texts(res), r)
	}
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no PNG image content: %#v", res.Content)
	}
	if !strings.Contains(texts(res), "shown") {
		t.Errorf("text %q", texts(res))
	}

	res = call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "print('before')\n1 / 0"}, &r)
	mustFail(t, res, "ZeroDivisionError")
	if got := texts(res); !strings.Contains(got, "before") || (!strings.Contains(got, "Traceback") && !strings.Contains(got, "1 / 0")) {
		t.Errorf("the error lacks the output or the traceback: %q", texts(res))
	}

	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "1", "language": "python", "context_id": "c1"}, nil), "E1002")
	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "1", "language": "cobol"}, nil), "E1002")
	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": id, "code": "1", "context_id": "no-such-context"}, nil), "E3001")
	mustFail(t, call(t, cs, "run_code", map[string]any{"sandbox_id": "missing-sandbox", "code": "1"}, nil), "E3001")
}

func TestPinnedServerOffersNoLifecycleAndTakesNoSandboxID(t *testing.T) {
	t.Parallel()
	env := emulator(t)
	id := create(t, connect(t, env, 0), "base")
	cs := connectWith(t, env, func(o *ServeOptions) { o.Sandbox = id })

	names := toolNames(t, cs)
	for _, n := range []string{"sandbox_create", "sandbox_list", "sandbox_kill", "sandbox_pause", "sandbox_resume"} {
		if slices.Contains(names, n) {
			t.Errorf("a pinned server offers %s", n)
		}
	}
	if len(names) != 11 {
		t.Errorf("tools %v", names)
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		if strings.Contains(string(b), "sandbox_id") {
			t.Errorf("%s takes sandbox_id: %s", tl.Name, b)
		}
		if tl.Name == "files_list" && !strings.Contains(string(b), "(1 to 16, default 1)") {
			t.Errorf("files_list's schema lost its depth's range: %s", b)
		}
	}

	var x execResult
	if res := call(t, cs, "exec", map[string]any{"command": "echo pinned"}, &x); res.IsError || x.Stdout != "pinned\n" {
		t.Fatalf("exec: %s", texts(res))
	}
	var info struct {
		SandboxID string `json:"sandboxID"`
	}
	if res := call(t, cs, "sandbox_info", nil, &info); res.IsError || info.SandboxID != id {
		t.Fatalf("info: %s", texts(res))
	}
	// sandbox_id is refused, even the pinned one: it is no argument.
	mustFail(t, call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "true"}, nil), "sandbox_id")
	// A tool not offered is unknown: a protocol error, as the SDK answers it.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "sandbox_kill", Arguments: map[string]any{"sandbox_id": id}}); err == nil {
		t.Error("a pinned server ran sandbox_kill")
	}
}

func TestToolsAndReadOnlyChooseTheTools(t *testing.T) {
	t.Parallel()
	cs := connectWith(t, nil, func(o *ServeOptions) { o.Tools = []string{"exec", "files_read"} })
	if got := toolNames(t, cs); !slices.Equal(got, []string{"exec", "files_read"}) {
		t.Errorf("--tools exec,files_read: %v", got)
	}
	cs = connectWith(t, nil, func(o *ServeOptions) { o.ReadOnly = true })
	want := []string{"files_list", "files_read", "process_list", "sandbox_info", "sandbox_list", "sandbox_metrics", "sandbox_url"}
	if got := toolNames(t, cs); !slices.Equal(got, want) {
		t.Errorf("--read-only: %v, want %v", got, want)
	}
	cs = connectWith(t, nil, func(o *ServeOptions) { o.ReadOnly, o.Sandbox = true, "sb-1" })
	if got := toolNames(t, cs); !slices.Equal(got, []string{"files_list", "files_read", "process_list", "sandbox_info", "sandbox_metrics", "sandbox_url"}) {
		t.Errorf("--read-only --sandbox: %v", got)
	}
}

func TestServeRefusesBadToolsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tools", "exec,nope"}, `unknown tool "nope" in --tools: the tools are sandbox_create, `},
		{[]string{"--read-only", "--tools", "exec"}, "exec, which is not read-only"},
		{[]string{"--sandbox", "sb-1", "--tools", "sandbox_kill"}, "sandbox_kill, which a server pinned with --sandbox does not offer"},
		{[]string{"--sandbox", "bad/id"}, "bad/id"},
	} {
		f, _ := factorytest.NewFactory(false, nil, "")
		ran := false
		cmd := NewCmdServe(f, func(_ context.Context, _ *ServeOptions) error { ran = true; return nil })
		cmd.SetArgs(tc.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		var e *abxerr.Error
		if !errors.As(err, &e) || e.Code.ExitCode() != abxerr.ExitUsage || !strings.Contains(e.Message, tc.want) || ran {
			t.Errorf("%v: %v, want exit 2 with %q", tc.args, err, tc.want)
		}
	}
}

// serve's help names every tool the server has, and a host that connects
// is told of the tools it is offered, none other.
func TestServeHelpAndInstructionsNameTheTools(t *testing.T) {
	t.Parallel()
	f, _ := factorytest.NewFactory(false, nil, "")
	long := NewCmdServe(f, nil).Long
	for _, tool := range mcpserver.Tools() {
		if !regexp.MustCompile(`\b` + tool.Name + `\b`).MatchString(long) {
			t.Errorf("mcp serve --help does not name %s", tool.Name)
		}
	}
	cs := connectWith(t, nil, func(o *ServeOptions) { o.Sandbox = "sb-1" })
	ins := cs.InitializeResult().Instructions
	for _, tool := range []string{"sandbox_create", "sandbox_kill", "sandbox_run", "sandbox_list"} {
		if strings.Contains(ins, tool) {
			t.Errorf("a pinned server's instructions name %s: %q", tool, ins)
		}
	}
	if !strings.Contains(ins, "exec") {
		t.Errorf("a pinned server's instructions do not name exec: %q", ins)
	}
}

// sandbox_run says once which path it could not collect and why.
func TestRunSaysAMissingPathOnce(t *testing.T) {
	t.Parallel()
	cs := connect(t, emulator(t), 0)
	var r struct {
		ExitCode int               `json:"exitCode"`
		Files    map[string]string `json:"files"`
		Missing  []string          `json:"missing"`
	}
	res := call(t, cs, "sandbox_run", map[string]any{"template": "base", "command": "echo hi > out.txt",
		"collect": []string{"out.txt", "nothere"}}, &r)
	if res.IsError || r.ExitCode != 0 || r.Files["out.txt"] != "hi\n" || len(r.Missing) != 1 {
		t.Fatalf("sandbox_run: %s %+v", texts(res), r)
	}
	if m := r.Missing[0]; !strings.HasPrefix(m, "nothere: ") || strings.HasPrefix(m, "nothere: nothere:") || !strings.Contains(m, "does not exist") {
		t.Errorf("missing entry %q names the path more than once", m)
	}
}

// An empty or blank template is refused by sandbox_create and sandbox_run
// in the words abx create and abx run use (sandboxes.CheckTemplate), and
// no sandbox is made.
func TestCreateAndRunRefuseAnEmptyTemplateInOneWording(t *testing.T) {
	t.Parallel()
	cs := connect(t, emulator(t), 0)
	const want = "E1002: the template is required (name the template to start from, e.g. base or code-interpreter)"
	for _, template := range []string{"", " \t"} {
		mustFail(t, call(t, cs, "sandbox_create", map[string]any{"template": template}, nil), want)
		mustFail(t, call(t, cs, "sandbox_run", map[string]any{"template": template, "command": "true"}, nil), want)
	}
	var list struct {
		Sandboxes []any `json:"sandboxes"`
	}
	if res := call(t, cs, "sandbox_list", map[string]any{}, &list); res.IsError || len(list.Sandboxes) != 0 {
		t.Errorf("sandbox_list after the refusals: %s", texts(res))
	}
}
