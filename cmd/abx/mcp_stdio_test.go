//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/emutest"
	"github.com/abx-dev/abx/internal/emulator/sdktest"
)

// stdioServer is `abx mcp serve` run as a host runs it, on pipes.
type stdioServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr strings.Builder
}

func startStdioServer(t *testing.T, env map[string]string) *stdioServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	s := &stdioServer{t: t}
	s.cmd = exec.CommandContext(ctx, sdktest.SelfAsABX(t), "mcp", "serve")
	s.cmd.Env = append(sdktest.EnvironWithout("ABX_", "XDG_"), "HOME="+t.TempDir())
	for k, v := range env {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stderr = &s.stderr
	s.cmd.WaitDelay = time.Minute
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.stdout = bufio.NewReader(out)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *stdioServer) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("writing %q: %v; stderr: %s", l, err, s.stderr.String())
		}
	}
}

// rpcAnswer is one line of the server's stdout.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		ProtocolVersion   string          `json:"protocolVersion"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// next reads one answer; ok is false at the end of stdout.
func (s *stdioServer) next() (a rpcAnswer, line string, ok bool) {
	s.t.Helper()
	b, err := s.stdout.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(b) == 0 {
		return a, "", false
	}
	if err != nil {
		s.t.Fatalf("reading stdout: %v", err)
	}
	if err := json.Unmarshal(b, &a); err != nil {
		s.t.Fatalf("stdout has a line that is not JSON: %q", b)
	}
	return a, string(b), true
}

func (s *stdioServer) mustNext() (rpcAnswer, string) {
	s.t.Helper()
	a, line, ok := s.next()
	if !ok {
		s.t.Fatalf("stdout ended early; stderr: %s", s.stderr.String())
	}
	return a, line
}

// exit waits for the end and says its status.
func (s *stdioServer) exit() int {
	s.t.Helper()
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		s.t.Fatalf("abx mcp serve: %v", err)
	}
	return s.cmd.ProcessState.ExitCode()
}

const (
	rpcInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipes","version":"1"}}}`
	rpcInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// A host that writes a line that is not JSON gets a Parse error (-32700,
// id null) and the server goes on serving; a request that follows is
// answered.
func TestMCPServeAnswersAMalformedLineAndGoesOn(t *testing.T) {
	t.Parallel()
	s := startStdioServer(t, nil)
	s.send(`{"jsonrpc":"2.0","id":1,"method":`)
	a, line := s.mustNext()
	if a.Error == nil || a.Error.Code != -32700 || string(a.ID) != "null" {
		t.Fatalf("want a Parse error with id null, got %s", line)
	}
	s.send(rpcInitialize, rpcInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sandbox_list","arguments":{}}}`)
	if a, line := s.mustNext(); string(a.ID) != "1" || a.Result == nil || a.Result.ProtocolVersion == "" {
		t.Fatalf("want initialize's result, got %s", line)
	}
	// No provider is configured: the tool says what to set.
	if a, line := s.mustNext(); string(a.ID) != "2" || a.Result == nil || !a.Result.IsError || !strings.Contains(line, "E1005") {
		t.Fatalf("want sandbox_list's tool error E1005, got %s", line)
	}
	_ = s.stdin.Close()
	if code := s.exit(); code != 0 {
		t.Errorf("exit status %d at the end of stdin; stderr: %s", code, s.stderr.String())
	}
}

// A host that sends a call and closes stdin at once (`abx mcp serve <
// requests`) gets the call's answer before the server exits, 0.
func TestMCPServeAnswersTheCallsInFlightWhenStdinEnds(t *testing.T) {
	t.Parallel()
	_, env := emutest.Cluster(t)
	env["ABX_ALICLOUD_CONTAINER_PROTOCOL"] = "private"
	s := startStdioServer(t, env)
	s.send(rpcInitialize, rpcInitialized,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sandbox_create","arguments":{"template":"base"}}}`)
	s.mustNext() // initialize
	a, line := s.mustNext()
	var sb struct {
		SandboxID string `json:"sandboxID"`
	}
	if a.Result == nil || a.Result.IsError || json.Unmarshal(a.Result.StructuredContent, &sb) != nil || sb.SandboxID == "" {
		t.Fatalf("sandbox_create: %s", line)
	}
	// The command is still running when stdin ends.
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"exec","arguments":{"sandbox_id":"` + sb.SandboxID +
		`","command":"sleep 1; echo finished"}}}`)
	_ = s.stdin.Close()
	a, line, ok := s.next()
	if !ok {
		t.Fatalf("stdout ended without the call's answer; stderr: %s", s.stderr.String())
	}
	if string(a.ID) != "3" || a.Result == nil || a.Result.IsError || !strings.Contains(line, "finished") {
		t.Fatalf("want exec's result, got %s", line)
	}
	if _, line, ok := s.next(); ok {
		t.Errorf("after the last answer: %s", line)
	}
	if code := s.exit(); code != 0 {
		t.Errorf("exit status %d; stderr: %s", code, s.stderr.String())
	}
}
