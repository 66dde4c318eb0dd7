//go:build linux

package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/abx-dev/abx/internal/emulator/sdktest"
)

// The E2B CLI's `sandbox connect`, on a terminal, gives a working shell
// through the engine: what is typed runs in the sandbox, and exit ends it.
func TestTheE2BCLIConnectsAShell(t *testing.T) {
	t.Parallel()
	script := sdktest.SDKScript(t, filepath.Join("..", "emulator", "testdata", "sdk"), "engine.test.mjs")
	cli := filepath.Join(filepath.Dir(script), "node_modules", ".bin", "e2b")
	fx := start(t)
	status, body := fx.do(t, "POST", "/sandboxes", token, `{"templateID":"base"}`)
	var created struct{ SandboxID string }
	if err := json.Unmarshal([]byte(body), &created); status != 201 || err != nil {
		t.Fatalf("create: %d %s", status, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, "sandbox", "connect", created.SandboxID)
	domain := "localhost:" + fx.url[strings.LastIndex(fx.url, ":")+1:]
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "E2B_API_URL="+fx.url, "E2B_SANDBOX_URL="+fx.url,
		"E2B_API_KEY="+token, "E2B_DOMAIN="+domain, "E2B_ACCESS_TOKEN=", "TERM=xterm-256color")
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer func() { _ = term.Close() }()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	shows := func(what string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			mu.Lock()
			got := screen.String()
			mu.Unlock()
			if strings.Contains(got, what) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%q not on the screen within a minute:\n%q", what, got)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	shows("$ ") // the sandbox shell's prompt
	_, _ = term.WriteString("echo $((6*7))-from-the-shell; stty size\r")
	shows("42-from-the-shell")
	shows("30 100")
	_, _ = term.WriteString("exit\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("e2b sandbox connect: %v", err)
		}
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("e2b sandbox connect did not end after exit:\n%q", screen.String())
	}
}
