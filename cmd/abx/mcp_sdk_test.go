//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator"
	"github.com/abx-dev/abx/internal/emulator/sdktest"
	"github.com/abx-dev/abx/internal/mcpserver"
)

// mcpSDKSteps is how many steps testdata/mcpsdk/mcp.test.mjs reports: a
// run that says less stopped early.
const mcpSDKSteps = 23

// The official MCP TypeScript SDK, pinned in testdata/mcpsdk, is the agent
// host: it spawns `abx mcp serve` on stdio (and once more with --sandbox)
// and connects to `abx mcp serve --listen` over Streamable HTTP, both on
// one emulator, and checks what a host sees: the tools and their schemas,
// the content of each kind of result, tool errors, the output cap, the
// bearer token. Every abx here is this test binary, so under -race the
// servers run with the race detector too.
func TestMCPServeWithTheOfficialSDK(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the emulator has no code interpreter")
	}
	run := sdktest.SDKScript(t, filepath.Join("testdata", "mcpsdk"), "mcp.test.mjs")

	emu, err := emulator.Start(emulator.Options{KeepRequests: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = emu.Close() })
	abx := sdktest.SelfAsABX(t)
	home := t.TempDir()
	env := append(sdktest.EnvironWithout("ABX_", "E2B_", "XDG_", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy"),
		"HOME="+home)
	env = append(env, emu.Env()...)

	url, token := serveMCPHTTP(t, abx, env)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", run)
	cmd.Dir = filepath.Dir(run)
	var tools, readOnly []string
	for _, tl := range mcpserver.Tools() {
		tools = append(tools, tl.Name)
		if tl.ReadOnly {
			readOnly = append(readOnly, tl.Name)
		}
	}
	cmd.Env = slices.Concat(env, []string{"ABX=" + abx, "MCP_URL=" + url, "MCP_TOKEN=" + token,
		"TOOLS=" + strings.Join(tools, ","), "READ_ONLY_TOOLS=" + strings.Join(readOnly, ",")})
	out, err := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("DATA RACE")) {
		t.Errorf("a server spawned on stdio found a data race:\n%s", out)
	}
	sdktest.Steps(t, out, err, mcpSDKSteps)
}

// serveMCPHTTP starts `abx mcp serve --listen 127.0.0.1:0` and returns its
// URL and the token it made, as read from its stderr. It is stopped with
// Ctrl-C when the test ends.
func serveMCPHTTP(t *testing.T, abx string, env []string) (url, token string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, abx, "mcp", "serve", "--listen", "127.0.0.1:0")
	cmd.Env = env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}

	type found struct{ url, token string }
	seen := make(chan found, 1)
	stderr := make(chan string, 1)
	go func() {
		var all strings.Builder
		var f found
		sent := false
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			all.WriteString(line + "\n")
			if u, ok := strings.CutPrefix(line, "Serving MCP on "); ok {
				f.url = strings.TrimSpace(u)
			}
			if tok, ok := strings.CutPrefix(line, "Bearer token (shown once): "); ok {
				f.token = strings.TrimSpace(tok)
			}
			if !sent && f.url != "" && f.token != "" {
				seen <- f
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, pr)
		stderr <- all.String()
	}()

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// stop sends Ctrl-C, waits for the end and answers all of stderr.
	stop := func() string {
		cancel()
		err := <-exited
		_ = pw.Close()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("abx mcp serve --listen, stopped with Ctrl-C: %v", err)
		}
		return <-stderr
	}

	select {
	case f := <-seen:
		t.Cleanup(func() {
			log := stop()
			if strings.Contains(log, "DATA RACE") {
				t.Errorf("abx mcp serve --listen found a data race:\n%s", log)
			}
			if n := strings.Count(log, f.token); n != 1 {
				t.Errorf("the token is on stderr %d times, not once:\n%s", n, log)
			}
		})
		return f.url, f.token
	case err := <-exited:
		exited <- err
		t.Fatalf("abx mcp serve --listen ended before serving: %v\n%s", err, stop())
	case <-time.After(time.Minute):
		t.Fatalf("abx mcp serve --listen printed no URL and token within a minute:\n%s", stop())
	}
	return "", ""
}
