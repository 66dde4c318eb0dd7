//go:build unix

package envd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"

	client "github.com/abx-dev/abx/internal/envd"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
	"github.com/abx-dev/abx/internal/envd/gen/process/processconnect"
)

const token = "tok-123"

// start serves a fake envd of version v and returns a client as user.
func start(t *testing.T, v, user string) (*client.Client, *Server, string) {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "home", "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Root: root, Version: v, AccessToken: token})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	h := http.Header{}
	h.Set("X-Access-Token", token)
	return client.New(ts.Client(), client.Endpoint{URL: ts.URL, Header: h, Version: v}, user), s, ts.URL
}

func run(t *testing.T, c *client.Client, line string) (string, *client.End, error) {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	end, err := c.Start(ctx, client.Command{Cmd: "/bin/bash", Args: []string{"-c", line}}, func(ev client.Event) error {
		out.Write(ev.Stdout)
		return nil
	})
	return out.String(), end, err
}

func TestStartEventsAndExitStatuses(t *testing.T) {
	c, _, _ := start(t, "0.2.10", "")
	var kinds []string
	end, err := c.Start(context.Background(), client.Command{Cmd: "/bin/bash", Args: []string{"-c", "echo hi; exit 3"}},
		func(ev client.Event) error {
			switch {
			case ev.Started != nil:
				kinds = append(kinds, "start")
			case ev.Stdout != nil:
				kinds = append(kinds, "stdout:"+string(ev.Stdout))
			case ev.End != nil:
				kinds = append(kinds, "end")
			}
			return nil
		})
	if err != nil || strings.Join(kinds, ",") != "start,stdout:hi\n,end" || end.ExitCode != 3 || !end.Exited {
		t.Fatalf("events %v end %+v err %v", kinds, end, err)
	}
	_, end, err = run(t, c, "kill -TERM $$")
	if err != nil || end.ExitCode != -1 || end.Exited || end.Status != "signal: terminated" {
		t.Fatalf("signalled: %+v %v", end, err)
	}
}

func TestMissingCommandByVersion(t *testing.T) {
	old, _, _ := start(t, "0.2.10", "")
	started := false
	_, err := old.Start(context.Background(), client.Command{Cmd: "no-such-cmd"}, func(ev client.Event) error {
		started = started || ev.Started != nil
		return nil
	})
	if connect.CodeOf(err) != connect.CodeInvalidArgument || started || !strings.Contains(err.Error(), "executable file not found") {
		t.Fatalf("0.2.10: %v (started %v)", err, started)
	}
	newer, _, _ := start(t, "0.6.12", "")
	end, err := newer.Start(context.Background(), client.Command{Cmd: "no-such-cmd"}, func(client.Event) error { return nil })
	if err != nil || end.ExitCode != 127 {
		t.Fatalf("0.6.12: %+v %v", end, err)
	}
}

func TestUserIsRequiredBefore040(t *testing.T) {
	_, _, url := start(t, "0.2.10", "")
	raw := processconnect.NewProcessClient(&http.Client{Transport: tokenOnly{}}, url)
	stream, err := raw.Start(context.Background(), connect.NewRequest(&pb.StartRequest{Process: &pb.ProcessConfig{Cmd: "true"}}))
	if err == nil {
		for stream.Receive() {
		}
		err = stream.Err()
	}
	if connect.CodeOf(err) != connect.CodeUnauthenticated || !strings.Contains(err.Error(), "no user specified") {
		t.Fatalf("got %v", err)
	}
	resp, err := http.Get(url + "/files?path=x") //nolint:noctx // a test against loopback
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("no token: %d %s", resp.StatusCode, b)
		}
	}
	req, _ := http.NewRequest("GET", url+"/files?path=x", nil)
	req.Header.Set("X-Access-Token", token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "username is required") {
		t.Errorf("no username: %d %s", resp.StatusCode, b)
	}
}

type tokenOnly struct{}

func (tokenOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Access-Token", token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestBadTokenIsPlain401(t *testing.T) {
	root := t.TempDir()
	s := New(Options{Root: root, AccessToken: token})
	ts := httptest.NewServer(s)
	defer ts.Close()
	c := client.New(ts.Client(), client.Endpoint{URL: ts.URL, Version: "0.2.10"}, "")
	_, err := c.List(context.Background())
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("got %v", err)
	}
}

func TestUploadFormsByVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		status  int
	}{{"0.2.10", 500}, {"0.5.7", 200}} {
		_, _, url := start(t, tc.version, "")
		req, _ := http.NewRequest("POST", url+"/files?path=a.txt&username=user", strings.NewReader("raw"))
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("X-Access-Token", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s octet-stream: %d %s", tc.version, resp.StatusCode, b)
		}
		if tc.status == 500 && !strings.HasSuffix(string(b), "}\n[]\n") {
			t.Errorf("0.2.10's failed upload ends with an empty list: %q", b)
		}
	}
	c, _, _ := start(t, "0.2.10", "")
	if err := c.Write(context.Background(), "sub/dir/b.txt", strings.NewReader("multipart")); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := c.Read(context.Background(), "sub/dir/b.txt", &got); err != nil || got.String() != "multipart" {
		t.Fatalf("read back %q %v", got.String(), err)
	}
}

func TestStdinFlagFromVersion030(t *testing.T) {
	// With the flag (0.3.0+), a process started without stdin sees EOF.
	c, _, _ := start(t, "0.6.12", "")
	end, err := c.Start(context.Background(), client.Command{Cmd: "cat"}, func(client.Event) error { return nil })
	if err != nil || end.ExitCode != 0 {
		t.Fatalf("%+v %v", end, err)
	}
	// Before it, every process has an open stdin that can be fed.
	old, _, _ := start(t, "0.2.10", "")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	defer cancel()
	end, err = old.Start(ctx, client.Command{Cmd: "head", Args: []string{"-c", "5"}}, func(ev client.Event) error {
		if ev.Started != nil {
			go func() { _ = old.SendStdin(ctx, *ev.Started, []byte("fed!\n")) }()
		}
		out.Write(ev.Stdout)
		return nil
	})
	if err != nil || out.String() != "fed!\n" || end.ExitCode != 0 {
		t.Fatalf("%q %+v %v", out.String(), end, err)
	}
}

func TestDetachedOutputIsLostAndEndedProcessesAreGone(t *testing.T) {
	c, _, _ := start(t, "0.2.10", "")
	ctx, cancel := context.WithCancel(context.Background())
	var pid uint32
	_, err := c.Start(ctx, client.Command{Cmd: "/bin/bash", Args: []string{"-c", "echo early; read x; echo late"}, Stdin: true},
		func(ev client.Event) error {
			if ev.Started != nil {
				pid = *ev.Started
				return errStop
			}
			return nil
		})
	cancel()
	if !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	list, err := c.List(context.Background())
	if err != nil || len(list) != 1 || list[0].PID != pid {
		t.Fatalf("still running: %v %v", list, err)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Connect(context.Background(), pid, func(ev client.Event) error {
			if ev.Started != nil {
				_ = c.SendStdin(context.Background(), pid, []byte("go\n"))
			}
			out.Write(ev.Stdout)
			return nil
		})
	}()
	<-done
	if !strings.HasSuffix(out.String(), "late\n") {
		t.Errorf("re-attached output %q, want what came after", out.String())
	}
	if _, err := c.Connect(context.Background(), pid, func(client.Event) error { return nil }); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("connect after exit: %v", err)
	}
	if err := c.Signal(context.Background(), 999999, false); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("signal unknown pid: %v", err)
	}
}

var errStop = io.ErrShortBuffer

func TestDeadlineKillsTheProcess(t *testing.T) {
	c, s, _ := start(t, "0.2.10", "")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := c.Start(ctx, client.Command{Cmd: "sleep", Args: []string{"30"}}, func(client.Event) error { return nil })
	if connect.CodeOf(err) != connect.CodeDeadlineExceeded {
		t.Fatalf("got %v", err)
	}
	deadline := time.Now().Add(2 * time.Minute) // a hang guard
	for time.Now().Before(deadline) {
		if list, _ := c.List(context.Background()); len(list) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the process outlived its deadline: %v", s.procs.byID)
}

func TestFilesystem(t *testing.T) {
	c, _, _ := start(t, "0.2.10", "")
	ctx := context.Background()
	if _, err := c.MakeDir(ctx, "a/b/c"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.MakeDir(ctx, "a/b"); connect.CodeOf(err) != connect.CodeAlreadyExists && !strings.Contains(err.Error(), "already exists") {
		t.Errorf("existing dir: %v", err)
	}
	_ = c.Write(ctx, "a/b/c/f.txt", strings.NewReader("x"))
	one, err := c.ListDir(ctx, "a", 0)
	if err != nil || len(one) != 1 || one[0].Name != "b" || one[0].Type != "dir" {
		t.Errorf("depth 0 means 1: %v %v", one, err)
	}
	all, _ := c.ListDir(ctx, "a", 5)
	if len(all) != 3 {
		t.Errorf("depth 5: %v", all)
	}
	if _, err := c.ListDir(ctx, "a/b/c/f.txt", 1); err == nil {
		t.Error("listing a file succeeds")
	}
	if _, err := c.Move(ctx, "a/b/c/f.txt", "moved/g.txt"); err != nil {
		t.Fatal(err)
	}
	if e, err := c.Stat(ctx, "moved/g.txt"); err != nil || e.Size != 1 || e.Type != "file" {
		t.Errorf("stat %+v %v", e, err)
	}
	if err := c.Remove(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove(ctx, "a"); err != nil {
		t.Errorf("removing a missing path succeeds: %v", err)
	}
	if _, err := c.Stat(ctx, "a"); err == nil {
		t.Error("removed dir still there")
	}
	// The rest of the machine is there to read, not to change.
	if e, err := c.Stat(ctx, "/etc/passwd"); err != nil || e.Path != "/etc/passwd" {
		t.Errorf("stat /etc/passwd: %+v %v", e, err)
	}
	for name, call := range map[string]func() error{
		"mkdir":  func() error { _, err := c.MakeDir(ctx, "/etc/abx-test"); return err },
		"remove": func() error { return c.Remove(ctx, "/etc/passwd") },
		"move":   func() error { _, err := c.Move(ctx, "moved/g.txt", "/usr/g.txt"); return err },
		"rmtmp":  func() error { return c.Remove(ctx, "/tmp") },
	} {
		// envd says so as its operating system does: internal, in the
		// system's words (docs/emulator.md, "Failures").
		if err := call(); connect.CodeOf(err) != connect.CodeInternal || !strings.HasSuffix(err.Error(), "permission denied") {
			t.Errorf("%s outside the sandbox's directories: %v", name, err)
		}
	}
}
