//go:build unix

package envd

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// pollClient is a Filesystem client as the synchronous SDKs use it: the
// polling watcher's calls, as user.
func pollClient(t *testing.T, version string) (filesystemconnect.FilesystemClient, *Server) {
	t.Helper()
	_, s, url := start(t, version, "")
	return filesystemconnect.NewFilesystemClient(http.DefaultClient, url), s
}

func polling[T any](msg *T) *connect.Request[T] {
	r := connect.NewRequest(msg)
	r.Header().Set("X-Access-Token", token)
	r.Header().Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("user:")))
	return r
}

// poll gathers the events of watcher id until one is want, polling as the
// SDKs do; it fails after a generous deadline.
func poll(t *testing.T, c filesystemconnect.FilesystemClient, id, want string) []string {
	t.Helper()
	var seen []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		res, err := c.GetWatcherEvents(t.Context(), polling(&fspb.GetWatcherEventsRequest{WatcherId: id}))
		if err != nil {
			t.Fatalf("GetWatcherEvents: %v (saw %q)", err, seen)
		}
		for _, e := range res.Msg.GetEvents() {
			seen = append(seen, strings.TrimPrefix(strings.ToLower(e.GetType().String()), "event_type_")+" "+e.GetName())
		}
		if slices.Contains(seen, want) {
			return seen
		}
	}
	t.Fatalf("no %q; saw %q", want, seen)
	return nil
}

func TestPollingWatcherTellsChangesSinceTheLastCall(t *testing.T) {
	c, s := pollClient(t, "0.2.10")
	dir := filepath.Join(s.Home(), "polled")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := c.CreateWatcher(t.Context(), polling(&fspb.CreateWatcherRequest{Path: "polled", Recursive: true}))
	if err != nil {
		t.Fatal(err)
	}
	id := res.Msg.GetWatcherId()
	if !strings.HasPrefix(id, "w") || len(id) < 8 {
		t.Errorf("watcher ID %q", id)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if seen := poll(t, c, id, "create a.txt"); seen[0] != "create a.txt" {
		t.Errorf("first change %q", seen)
	}
	// Each call hands over what came since the last: a.txt is not told again.
	if err := os.WriteFile(filepath.Join(dir, "sub", "b.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if seen := poll(t, c, id, "create sub/b.txt"); slices.Contains(seen, "create a.txt") {
		t.Errorf("told again: %q", seen)
	}
	if _, err := c.RemoveWatcher(t.Context(), polling(&fspb.RemoveWatcherRequest{WatcherId: id})); err != nil {
		t.Fatal(err)
	}
	for _, call := range []func() error{
		func() error {
			_, err := c.GetWatcherEvents(t.Context(), polling(&fspb.GetWatcherEventsRequest{WatcherId: id}))
			return err
		},
		func() error {
			_, err := c.RemoveWatcher(t.Context(), polling(&fspb.RemoveWatcherRequest{WatcherId: id}))
			return err
		},
	} {
		if err := call(); connect.CodeOf(err) != connect.CodeNotFound || !strings.Contains(err.Error(), "watcher with id "+id+" not found") {
			t.Errorf("after RemoveWatcher: %v", err)
		}
	}
}

func TestPollingWatcherRefusals(t *testing.T) {
	c, s := pollClient(t, "0.2.10")
	if err := os.WriteFile(filepath.Join(s.Home(), "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		code connect.Code
		msg  string
	}{
		{"nope", connect.CodeNotFound, "path /home/user/nope not found"},
		{"f", connect.CodeInvalidArgument, "path /home/user/f not a directory"},
	} {
		_, err := c.CreateWatcher(t.Context(), polling(&fspb.CreateWatcherRequest{Path: tc.path}))
		if connect.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v", tc.path, err)
		}
	}
	// 0.2.10 resolves no user of its own.
	_, err := c.CreateWatcher(t.Context(), connect.NewRequest(&fspb.CreateWatcherRequest{Path: "."}))
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("without a user: %v", err)
	}
}

// A killed sandbox's watches go with it.
func TestPollingWatchersEndWithTheSandbox(t *testing.T) {
	c, s := pollClient(t, "0.2.10")
	res, err := c.CreateWatcher(t.Context(), polling(&fspb.CreateWatcherRequest{Path: "."}))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = c.GetWatcherEvents(t.Context(), polling(&fspb.GetWatcherEventsRequest{WatcherId: res.Msg.GetWatcherId()}))
	if connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("after the kill: %v", err)
	}
	// A create that was under way when the sandbox went keeps nothing.
	if _, err := s.watchers.add(&polled{}); connect.CodeOf(err) != connect.CodeUnavailable {
		t.Errorf("a watch kept after the kill: %v", err)
	}
}

// The limit holds for creates at once: the check and the keeping are one
// step.
func TestPollingWatchersLimitHoldsAtOnce(t *testing.T) {
	var ws watchers
	var wg sync.WaitGroup
	var mu sync.Mutex
	kept := 0
	for range maxWatchers + 50 {
		wg.Go(func() {
			if _, err := ws.add(&polled{}); err == nil {
				mu.Lock()
				kept++
				mu.Unlock()
			} else if connect.CodeOf(err) != connect.CodeResourceExhausted {
				t.Errorf("refused with %v", err)
			}
		})
	}
	wg.Wait()
	if kept != maxWatchers {
		t.Fatalf("%d watches kept, want at most %d", kept, maxWatchers)
	}
}
