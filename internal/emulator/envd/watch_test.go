//go:build unix

package envd

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/abxerr"
	client "github.com/abx-dev/abx/internal/envd"
	fspb "github.com/abx-dev/abx/internal/envd/gen/filesystem"
	"github.com/abx-dev/abx/internal/envd/gen/filesystem/filesystemconnect"
)

// watching follows a watch in the background; until waits for a change.
type watching struct {
	t      *testing.T
	events chan string
	done   chan error
}

func watchFrom(t *testing.T, c *client.Client, dir string, recursive bool) *watching {
	t.Helper()
	w, err := c.WatchDir(t.Context(), dir, recursive)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	out := &watching{t: t, events: make(chan string, 256), done: make(chan error, 1)}
	go func() {
		for {
			e, err := w.Next()
			if err != nil {
				out.done <- err
				return
			}
			out.events <- e.Op + " " + e.Name
		}
	}()
	return out
}

// until collects changes until one is want, and returns those before it;
// it fails the test after a generous deadline.
func (w *watching) until(want string) []string {
	w.t.Helper()
	var seen []string
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e := <-w.events:
			if e == want {
				return seen
			}
			seen = append(seen, e)
		case err := <-w.done:
			w.t.Fatalf("the watch ended (%v) before %q; saw %q", err, want, seen)
		case <-deadline:
			w.t.Fatalf("no %q; saw %q", want, seen)
		}
	}
}

func TestWatchDirTellsEachKind(t *testing.T) {
	c, s, _ := start(t, "0.2.10", "")
	out := filepath.Join(s.Home(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	w := watchFrom(t, c, "out", false)
	a := filepath.Join(out, "a.txt")
	steps := []struct {
		do   func() error
		want string
	}{
		{func() error { return os.WriteFile(a, nil, 0o644) }, "create a.txt"},
		{func() error { return os.WriteFile(a, []byte("x"), 0o644) }, "write a.txt"},
		{func() error { return os.Chmod(a, 0o600) }, "chmod a.txt"},
		{func() error { return os.Rename(a, filepath.Join(out, "b.txt")) }, "rename a.txt"},
		{func() error { return nil }, "create b.txt"},
		{func() error { return os.Remove(filepath.Join(out, "b.txt")) }, "remove b.txt"},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatal(err)
		}
		w.until(st.want)
	}
}

func TestWatchDirRecursive(t *testing.T) {
	c, s, _ := start(t, "0.2.10", "")
	home := s.Home()
	if err := os.MkdirAll(filepath.Join(home, "tree", "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	flat := watchFrom(t, c, "/home/user/tree", false)
	deep := watchFrom(t, c, "~/tree", true)
	// A directory there before and one made since are both watched.
	if err := os.WriteFile(filepath.Join(home, "tree", "old", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deep.until("create old/f")
	if err := os.Mkdir(filepath.Join(home, "tree", "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep.until("create new")
	if err := os.WriteFile(filepath.Join(home, "tree", "new", "g"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deep.until("create new/g")
	if err := os.WriteFile(filepath.Join(home, "tree", "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range flat.until("create marker") {
		if strings.Contains(e, "/") {
			t.Errorf("a watch without recursive told %q", e)
		}
	}
}

func TestWatchDirOlderEnvdIgnoresRecursive(t *testing.T) {
	c, s, url := start(t, "0.1.2", "")
	home := s.Home()
	if err := os.MkdirAll(filepath.Join(home, "tree", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The client refuses; a client that asks anyway gets the one directory.
	if _, err := c.WatchDir(t.Context(), "tree", true); abxerr.From(err).Code != abxerr.Unsupported {
		t.Fatalf("err %v", err)
	}
	fs := filesystemconnect.NewFilesystemClient(http.DefaultClient, url)
	req := connect.NewRequest(&fspb.WatchDirRequest{Path: "tree", Recursive: true})
	req.Header().Set("X-Access-Token", token)
	req.Header().Set("Authorization", "Basic dXNlcjo=")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	stream, err := fs.WatchDir(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stream.Close() }()
	if !stream.Receive() || stream.Msg().GetStart() == nil {
		t.Fatalf("no start: %v", stream.Err())
	}
	for _, f := range []string{"sub/deep", "marker"} {
		if err := os.WriteFile(filepath.Join(home, "tree", filepath.FromSlash(f)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for stream.Receive() {
		name := stream.Msg().GetFilesystem().GetName()
		if name == "sub/deep" {
			t.Fatal("0.1.2 watched a subdirectory")
		}
		if name == "marker" {
			return
		}
	}
	t.Fatalf("stream ended: %v", stream.Err())
}

func TestWatchDirRefusals(t *testing.T) {
	c, s, _ := start(t, "0.2.10", "")
	if err := os.WriteFile(filepath.Join(s.Home(), "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		code connect.Code
		msg  string
	}{
		{"nope", connect.CodeNotFound, "path /home/user/nope not found"},
		{"f", connect.CodeInvalidArgument, "path /home/user/f not a directory"},
		{"", connect.CodeInvalidArgument, "path is required"},
	}
	for _, tc := range cases {
		_, err := c.WatchDir(t.Context(), tc.path, false)
		if connect.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v (%s), want %s %q", tc.path, err, connect.CodeOf(err), tc.code, tc.msg)
		}
		if strings.Contains(err.Error(), s.Home()) {
			t.Errorf("%q: the error names this machine's path: %v", tc.path, err)
		}
	}
}

func TestWatchDirStaysInsideTheSandbox(t *testing.T) {
	// The link leads to the emulator's state, which holds the sandboxes:
	// the view shows it empty, and nothing in it exists.
	state := stateDir(t)
	outside := state
	s := New(Options{Root: filepath.Join(state, "sb"), Version: "0.2.10", Hide: []string{state}})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	c := client.New(ts.Client(), client.Endpoint{URL: ts.URL, Version: "0.2.10"}, "")
	home := s.Home()
	if err := os.Symlink(outside, filepath.Join(home, "escape")); err != nil {
		t.Fatal(err)
	}
	// A recursive watch does not follow the link.
	deep := watchFrom(t, c, ".", true)
	if _, m := s.view.host(state); m.target != "/" {
		// The state is where a sandbox directory is (/tmp): the link
		// leads into the sandbox's own, where nothing is.
		if _, err := c.WatchDir(t.Context(), "escape", false); connect.CodeOf(err) != connect.CodeNotFound {
			t.Errorf("watch through the link: %v", err)
		}
	} else {
		// A watch through it sees the hidden directory, empty.
		through := watchFrom(t, c, "escape", false)
		if err := os.WriteFile(filepath.Join(outside, "secret"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(outside, 0o750); err != nil {
			t.Fatal(err)
		}
		if seen := through.until("chmod ."); len(seen) != 0 {
			t.Errorf("a watch of a hidden directory told %q", seen)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range deep.until("create marker") {
		if strings.Contains(e, "secret") {
			t.Errorf("a recursive watch followed a link out: %q", e)
		}
	}
}

func TestWatchDirEndsWithItsSandbox(t *testing.T) {
	c, s, _ := start(t, "0.2.10", "")
	w := watchFrom(t, c, ".", false)
	s.Close()
	select {
	case err := <-w.done:
		if e := abxerr.From(client.AsError(err)); e.Code != abxerr.Network || !strings.Contains(e.Message, "sandbox is gone") {
			t.Errorf("err %v (%s)", err, e.Code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the watch outlived its sandbox")
	}
}

// The handler's end is checked by the cleanup: the test server's Close
// waits for every request to be done.
func TestWatchDirEndsWhenTheClientGoes(t *testing.T) {
	c, _, _ := start(t, "0.2.10", "")
	ctx, cancel := context.WithCancel(t.Context())
	w, err := c.WatchDir(ctx, ".", false)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := w.Next(); !errors.Is(err, context.Canceled) && abxerr.From(err).Code != abxerr.Interrupted {
		t.Errorf("err %v", err)
	}
}
