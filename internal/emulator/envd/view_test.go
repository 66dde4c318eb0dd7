//go:build linux

package envd

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/abx-dev/abx/internal/emulator/jail/jailtest"
	client "github.com/abx-dev/abx/internal/envd"
)

// startIsolated serves an envd whose processes run in the sandbox's view,
// with the state directory (two sandboxes' parent) hidden, and returns a
// client as user.
func startIsolated(t *testing.T, user string) (*client.Client, string) {
	t.Helper()
	jailtest.Need(t)
	state := t.TempDir()
	root := filepath.Join(state, "sandbox")
	s := New(Options{Root: root, AccessToken: token, Isolated: true, Hide: []string{state}})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); ts.Close() })
	h := http.Header{}
	h.Set("X-Access-Token", token)
	return client.New(ts.Client(), client.Endpoint{URL: ts.URL, Header: h, Version: "0.2.10"}, user), root
}

func read(t *testing.T, c *client.Client, p string) (string, error) {
	t.Helper()
	var b bytes.Buffer
	_, err := c.Read(context.Background(), p, &b)
	return b.String(), err
}

// files and exec mean the same file by the same path, whichever wrote it.
func TestFilesAndExecAgreeOnPaths(t *testing.T) {
	t.Parallel()
	c, root := startIsolated(t, "user")
	rootC, _ := startIsolated(t, "root")
	ctx := context.Background()
	for i, p := range []string{"a.txt", "./b.txt", "~/c.txt", "/home/user/d.txt", "sub/dir/e.txt", "/home/user/../user/f.txt",
		"/tmp/g.txt", "/tmp/../tmp/h.txt", "/var/tmp/i.txt", "~/deep/er/j.txt", "/tmp/k dir/l.txt"} {
		want := "files " + p + "\n"
		q := "'" + p + "'" // for the shell; ~ stays outside the quotes
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			q = "~/'" + rest + "'"
		}
		if err := c.Write(ctx, p, strings.NewReader(want)); err != nil {
			t.Fatalf("write %s: %v", p, err)
		}
		if out, end, err := run(t, c, "cat "+q); err != nil || end.ExitCode != 0 || out != want {
			t.Errorf("%d: exec reads %s as %q (%v)", i, p, out, err)
		}
		if _, end, err := run(t, c, "echo exec > "+q); err != nil || end.ExitCode != 0 {
			t.Fatalf("exec writes %s: %v", p, err)
		}
		if got, err := read(t, c, p); err != nil || got != "exec\n" {
			t.Errorf("%d: files reads %s as %q (%v)", i, p, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "g.txt")); err == nil {
		if b, _ := os.ReadFile(filepath.Join(os.TempDir(), "g.txt")); string(b) == "exec\n" {
			t.Error("the sandbox's /tmp/g.txt is the host's")
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "tmp", "g.txt")); err != nil || string(b) != "exec\n" {
		t.Errorf("the sandbox's /tmp/g.txt on this machine: %q %v", b, err)
	}
	// root's home is /root, and ~ means it.
	if err := rootC.Write(ctx, "~/r.txt", strings.NewReader("r")); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := run(t, rootC, "id -un; echo $HOME; cat /root/r.txt"); out != "root\n/root\nr" {
		t.Errorf("root: %q", out)
	}
	if out, _, _ := run(t, c, "whoami; echo $HOME; pwd; id -u"); out != "user\n/home/user\n/home/user\n1000\n" {
		t.Errorf("user: %q", out)
	}
	if e, err := c.Stat(ctx, "a.txt"); err != nil || e.Path != "/home/user/a.txt" || e.Owner != "user" {
		t.Errorf("stat a.txt: %+v %v", e, err)
	}
}

// Links a sandbox makes are followed inside its view: never to this
// machine's /tmp or home, never into the emulator's state, never to write
// where the sandbox may not.
func TestLinksStayInsideTheView(t *testing.T) {
	t.Parallel()
	c, root := startIsolated(t, "user")
	ctx := context.Background()
	line := `echo inside > /tmp/t.txt; ln -s /tmp tmplink; ln -s / rootlink; ln -s ../../tmp/t.txt rel; ` +
		`ln -s ` + filepath.Dir(root) + ` statelink; ln -s loop1 loop2; ln -s loop2 loop1`
	if _, end, err := run(t, c, line); err != nil || end.ExitCode != 0 {
		t.Fatalf("links: %v %+v", err, end)
	}
	for _, p := range []string{"tmplink/t.txt", "rel", "rootlink/tmp/t.txt"} {
		if got, err := read(t, c, p); err != nil || got != "inside\n" {
			t.Errorf("%s: %q %v", p, got, err)
		}
	}
	if _, err := read(t, c, "statelink/sandbox/home/user/rel"); err == nil {
		t.Error("the emulator's state is reachable through a link")
	}
	if entries, err := c.ListDir(ctx, "statelink", 1); len(entries) != 0 || (err != nil && connect.CodeOf(err) != connect.CodeNotFound) {
		t.Errorf("the state directory lists %v (%v)", entries, err)
	}
	if err := c.Write(ctx, "rootlink/etc/abx-test", strings.NewReader("x")); err == nil {
		t.Error("a link led a write out of the sandbox's directories")
	}
	if _, err := read(t, c, "loop1"); err == nil {
		t.Error("a link loop was read")
	}
	if err := c.Write(ctx, "/usr/abx-test", strings.NewReader("x")); err == nil {
		t.Error("wrote outside the sandbox's directories")
	}
	if _, err := c.MakeDir(ctx, "/opt/abx-test"); connect.CodeOf(err) != connect.CodeInternal {
		t.Errorf("mkdir outside: %v", err)
	}
	entries, err := c.ListDir(ctx, "/", 1)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if err != nil || !strings.Contains(" "+strings.Join(names, " ")+" ", " tmp ") {
		t.Errorf("ls /: %v %v", names, err)
	}
	if entries, err := c.ListDir(ctx, "/home", 1); err != nil || len(entries) != 1 || entries[0].Path != "/home/user" {
		t.Errorf("ls /home: %+v %v", entries, err)
	}
	// The files API has the sandbox user's rights, whoever runs the
	// emulator, and shows none of this machine's devices or processes.
	if st, err := os.Stat("/etc/shadow"); err == nil && st.Mode().Perm()&0o004 == 0 {
		if got, err := read(t, c, "/etc/shadow"); err == nil {
			t.Errorf("read /etc/shadow: %d bytes", len(got))
		}
	}
	for _, dir := range []string{"/dev", "/proc", "/run"} {
		if entries, err := c.ListDir(ctx, dir, 1); err != nil || len(entries) != 0 {
			t.Errorf("ls %s: %d entries, %v", dir, len(entries), err)
		}
	}
}

// A directory swapped for a link between resolve and open (a sandbox
// process racing the files API) fails the open instead of leading it out.
func TestOpenRefusesALinkMadeAfterResolve(t *testing.T) {
	t.Parallel()
	s := New(Options{Root: t.TempDir()})
	read, err := s.locate("/home/user/dir/hostname", User, true)
	if err != nil {
		t.Fatal(err)
	}
	write, err := s.locate("/home/user/dir/abx-race-test", User, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(s.Home(), "dir")); err != nil {
		t.Fatal(err)
	}
	if f, err := s.view.open(read, os.O_RDONLY, 0); err == nil {
		_ = f.Close()
		t.Error("read through a link made after resolve")
	}
	if f, err := s.view.open(write, os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
		_ = f.Close()
		_ = os.Remove("/etc/abx-race-test")
		t.Error("wrote through a link made after resolve")
	}
}
