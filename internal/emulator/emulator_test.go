//go:build unix

package emulator

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/record"
)

// call sends one request to a running emulator with its key.
func call(t *testing.T, e *Emulator, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-Key", e.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func createSandbox(t *testing.T, e *Emulator, body string) string {
	t.Helper()
	status, reply := call(t, e, "POST", "/kruise/api/sandboxes", body)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %s", status, reply)
	}
	_, rest, _ := strings.Cut(reply, `"sandboxID":"`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

// eventually polls cond for up to a minute: the expiry loop runs on its
// own, and the machine may be slow.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("never happened: %s", what)
}

func TestTimeoutsExpireWithoutARequest(t *testing.T) {
	t.Parallel()
	// At 100× a 30 s timeout passes in 0.3 s.
	e, err := Start(Options{TimeScale: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	gone := createSandbox(t, e, `{"templateID":"base","timeout":30}`)
	paused := createSandbox(t, e, `{"templateID":"base","timeout":30,"autoPause":true}`)
	dir := filepath.Join(e.StateDir, "sandboxes", gone)
	// Only the loop runs: nothing here asks the manager, which would
	// apply the timeouts itself.
	eventually(t, "the sandbox expired", func() bool {
		_, err := os.Stat(dir)
		return e.Gateway.Envd(gone) == nil && errors.Is(err, os.ErrNotExist)
	})
	eventually(t, "the auto-pause sandbox paused", func() bool {
		status, _ := call(t, e, "GET", "/kruise/"+paused+"/49983/health", "")
		return status == http.StatusBadGateway
	})
}

func TestStateSurvivesARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e, err := Start(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	running := createSandbox(t, e, `{"templateID":"code-interpreter","timeout":3600,"metadata":{"owner":"ci"}}`)
	paused := createSandbox(t, e, `{"templateID":"base"}`)
	if status, body := call(t, e, "POST", "/kruise/api/sandboxes/"+paused+"/pause", ""); status != http.StatusNoContent {
		t.Fatalf("pause: %d %s", status, body)
	}
	killed := createSandbox(t, e, `{"templateID":"base"}`)
	call(t, e, "DELETE", "/kruise/api/sandboxes/"+killed, "")
	file := filepath.Join(dir, "sandboxes", running, "home", "user", "kept.txt")
	if err := os.WriteFile(file, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, err := record.Read(dir)
	if err != nil || rt.URL != e.URL || rt.APIKey != e.APIKey {
		t.Fatalf("runtime %+v, %v", rt, err)
	}
	if _, err := Start(Options{StateDir: dir}); err == nil || !strings.Contains(err.Error(), "another emulator") {
		t.Fatalf("a second emulator on the same state dir: %v", err)
	}
	key := e.APIKey
	// A directory nobody owns any more goes at the next start.
	orphan := filepath.Join(dir, "sandboxes", "default--base-zzzzz")
	if err := os.MkdirAll(orphan, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := record.Read(dir); !errors.Is(err, record.ErrNotRunning) {
		t.Fatalf("after Close: %v", err)
	}

	e, err = Start(Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close() }()
	if e.APIKey != key {
		t.Errorf("the key changed across the restart")
	}
	var states []string
	for _, s := range e.Manager.Sandboxes() {
		states = append(states, s.ID+"="+s.State+" "+s.Metadata["owner"])
	}
	want := []string{running + "=running ci", paused + "=paused "}
	if strings.Join(states, ",") != strings.Join(want, ",") {
		t.Errorf("sandboxes after restart: %v, want %v", states, want)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "kept" {
		t.Errorf("the sandbox's file: %q, %v", b, err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan directory left: %v", err)
	}
	// (its envd answers, if only to refuse a request without the token)
	if status, _ := call(t, e, "GET", "/kruise/"+running+"/49983/health", ""); status == http.StatusBadGateway {
		t.Errorf("restored sandbox's envd: %d", status)
	}
	if status, _ := call(t, e, "GET", "/kruise/"+paused+"/49983/health", ""); status != http.StatusBadGateway {
		t.Errorf("restored paused sandbox's envd: %d, want 502", status)
	}
	if info, err := os.Stat(filepath.Join(dir, sandboxesFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("records file: %v %v", info, err)
	}
}

func TestTemporaryStateDirIsRemoved(t *testing.T) {
	t.Parallel()
	e, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	createSandbox(t, e, `{"templateID":"base"}`)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary state dir left: %v", err)
	}
}

func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", "example.com:0"} {
		if _, err := Start(Options{Addr: addr}); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: %v", addr, err)
		}
	}
}
