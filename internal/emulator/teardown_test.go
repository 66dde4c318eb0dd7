//go:build unix

package emulator

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	client "github.com/abx-dev/abx/internal/envd"
)

// startEmulator starts an emulator closed at cleanup, so that cleanups
// registered later (releasing stuck processes) run before its Close.
func startEmulator(t *testing.T, opts Options) *Emulator {
	t.Helper()
	e, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// stuckProcess starts, in the sandbox's envd, a process that closing the
// envd cannot end at once: its child leaves the process group envd kills
// and keeps the output pipes open, so the close waits its full few seconds
// for it. Only a sandbox without a box has one (--isolation none: the
// processes of a box all end with it): the tests of slow teardowns run
// there. Until release is called (it also is at cleanup), the sandbox's
// teardown is in progress for that long.
func stuckProcess(t *testing.T, e *Emulator, id string) (release func()) {
	t.Helper()
	token := ""
	for _, s := range e.Manager.Sandboxes() {
		if s.ID == id {
			token = s.EnvdAccessToken
		}
	}
	h := http.Header{}
	h.Set("X-Access-Token", token)
	c := client.New(http.DefaultClient, client.Endpoint{URL: e.URL + "/kruise/" + id + "/49983", Header: h, Version: "0.2.10"}, "")
	pids := make(chan int, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		var out strings.Builder
		sent := false
		// setsid puts the background job in a session of its own, out of
		// reach of the signals that stop the sandbox's sessions. The job
		// prints its PID itself, once it is in that session: $! would be
		// known before, and a kill in between would reach it.
		_, _ = c.Start(context.Background(), client.Command{Cmd: "/bin/bash", Args: []string{"-c", "setsid sh -c 'echo $$; exec sleep 600' & wait"}},
			func(ev client.Event) error {
				out.Write(ev.Stdout)
				if line, _, ok := strings.Cut(out.String(), "\n"); ok && !sent {
					if pid, err := strconv.Atoi(line); err == nil {
						pids <- pid
						sent = true
					}
				}
				return nil
			})
	}()
	var pid int
	select {
	case pid = <-pids:
	case <-ended:
		t.Fatal("the stuck process did not start")
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			<-ended // its stream ends with it
		})
	}
	t.Cleanup(release)
	return release
}

// A sandbox whose processes take seconds to stop is killed, or expires:
// while its teardown runs, the manager and the gateway answer everyone else.
func TestASlowTeardownBlocksNobody(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"killed", "expired"} {
		t.Run(how, func(t *testing.T) {
			e := startEmulator(t, Options{Isolation: IsolationNone})
			slow := createSandbox(t, e, `{"templateID":"base","timeout":3600}`)
			release := stuckProcess(t, e, slow)
			dir := filepath.Join(e.StateDir, "sandboxes", slow)

			switch how {
			case "killed":
				if status, body := call(t, e, "DELETE", "/kruise/api/sandboxes/"+slow, ""); status != http.StatusNoContent {
					t.Fatalf("kill: %d %s", status, body)
				}
			case "expired":
				// The emulator's own loop applies the timeout.
				if status, body := call(t, e, "POST", "/kruise/api/sandboxes/"+slow+"/timeout", `{"timeout":1}`); status != http.StatusNoContent {
					t.Fatalf("timeout: %d %s", status, body)
				}
				eventually(t, "the sandbox expired", func() bool { return e.Gateway.Envd(slow) == nil })
			}
			if e.Gateway.Envd(slow) != nil {
				t.Fatal("the gateway still routes to the sandbox")
			}
			// Its directory goes when its processes are gone: the teardown
			// is in progress, and stays so until release (or for the few
			// seconds envd waits for a stuck process: the generous bound on
			// the requests below).
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("the teardown was over already: the %s event waited for it (%v)", how, err)
			}

			status, body := call(t, e, "GET", "/kruise/api/v2/sandboxes", "")
			if status != http.StatusOK || strings.Contains(body, slow) {
				t.Fatalf("list: %d %s", status, body)
			}
			other := createSandbox(t, e, `{"templateID":"base"}`)
			if status, body := call(t, e, "GET", "/kruise/"+other+"/49983/health", ""); status != http.StatusUnauthorized {
				t.Fatalf("the new sandbox's envd: %d %s", status, body)
			}
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("the requests were answered only after the teardown (%v)", err)
			}

			release()
			eventually(t, "the teardown finished", func() bool {
				_, err := os.Stat(dir)
				return errors.Is(err, os.ErrNotExist)
			})
		})
	}
}

// Close returns after the teardowns of killed sandboxes, however slow.
func TestCloseWaitsForTeardowns(t *testing.T) {
	t.Parallel()
	e := startEmulator(t, Options{StateDir: t.TempDir(), Isolation: IsolationNone})
	slow := createSandbox(t, e, `{"templateID":"base"}`)
	release := stuckProcess(t, e, slow)
	if status, body := call(t, e, "DELETE", "/kruise/api/sandboxes/"+slow, ""); status != http.StatusNoContent {
		t.Fatalf("kill: %d %s", status, body)
	}
	// The teardown lasts until the process is released, a moment after
	// Close has begun to wait for it.
	time.AfterFunc(300*time.Millisecond, release)
	_ = e.Close()
	if _, err := os.Stat(filepath.Join(e.StateDir, "sandboxes", slow)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Close returned before the killed sandbox's teardown: %v", err)
	}
}
