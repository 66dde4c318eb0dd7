//go:build unix

package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/emulator/emutest"
)

func TestToolsOnTheEmulator(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	opts.MaxOutput = 4096
	cs := serve(t, opts)

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

func TestLifecycleProcessAndListToolsOnTheEmulator(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	cs := serve(t, opts)
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

// sandbox_snapshot and sandbox_fork on the emulator: a fork's clones start
// with the sandbox's files, and sandbox_create with the snapshot's ID makes
// one more. A server pinned to a sandbox snapshots it and offers no fork.
func TestSnapshotToolsOnTheEmulator(t *testing.T) {
	t.Parallel()
	opts, _ := onEmulator(t)
	cs := serve(t, opts)
	id := create(t, cs, "base")
	if res := call(t, cs, "exec", map[string]any{"sandbox_id": id, "command": "echo forked > state.txt"}, nil); res.IsError {
		t.Fatalf("exec: %s", texts(res))
	}
	var snap struct {
		SnapshotID string `json:"snapshotID"`
		SandboxID  string `json:"sandboxID"`
	}
	if res := call(t, cs, "sandbox_snapshot", map[string]any{"sandbox_id": id, "ttl_seconds": 3600}, &snap); res.IsError || snap.SnapshotID == "" || snap.SandboxID != id {
		t.Fatalf("sandbox_snapshot: %s %+v", texts(res), snap)
	}
	var forked struct {
		SnapshotID string `json:"snapshotID"`
		Clones     []struct {
			SandboxID string `json:"sandboxID"`
		} `json:"clones"`
	}
	if res := call(t, cs, "sandbox_fork", map[string]any{"sandbox_id": id, "count": 2}, &forked); res.IsError || len(forked.Clones) != 2 {
		t.Fatalf("sandbox_fork: %s %+v", texts(res), forked)
	}
	clone := create(t, cs, snap.SnapshotID)
	for _, c := range []string{forked.Clones[0].SandboxID, forked.Clones[1].SandboxID, clone} {
		var out struct {
			Stdout string `json:"stdout"`
		}
		if res := call(t, cs, "exec", map[string]any{"sandbox_id": c, "command": "cat state.txt"}, &out); res.IsError || out.Stdout != "forked\n" {
			t.Errorf("%s: %s %q", c, texts(res), out.Stdout)
		}
	}
	mustFail(t, call(t, cs, "sandbox_fork", map[string]any{"sandbox_id": id, "count": 51}, nil), "E1002")

	pinned := opts
	pinned.Sandbox = id
	ps := serve(t, pinned)
	if res := call(t, ps, "sandbox_snapshot", map[string]any{}, &snap); res.IsError || snap.SandboxID != id {
		t.Errorf("a pinned server's snapshot: %s", texts(res))
	}
	tools, err := ps.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "sandbox_fork" {
			t.Error("a pinned server offers sandbox_fork")
		}
	}
}
