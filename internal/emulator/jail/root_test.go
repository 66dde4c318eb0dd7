//go:build linux

package jail_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// A box's root is its own directory: what a command makes at the top is
// kept there, never on this machine; this machine's top-level directories
// are in it, read-only to root too, and its links are copied.
func TestTheBoxHasARootOfItsOwn(t *testing.T) {
	t.Parallel()
	top := filepath.Join(t.TempDir(), "top")
	if err := jail.Prepare(top, 0o755); err != nil {
		t.Fatal(err)
	}
	b := newBoxWith(t, true, func(s *jail.BoxSpec) { s.Top = top })
	mark := "abx-root-test-" + filepath.Base(filepath.Dir(top))
	out, code := b.run(t, true, "mkdir /"+mark+" && echo kept > /"+mark+"/f && cat /"+mark+"/f")
	if code != 0 || out != "kept\n" {
		t.Fatalf("a top-level directory made inside: exit %d, %q", code, out)
	}
	if got, err := os.ReadFile(filepath.Join(top, mark, "f")); err != nil || string(got) != "kept\n" {
		t.Errorf("the box's root on this machine: %q, %v", got, err)
	}
	if _, err := os.Lstat("/" + mark); err == nil {
		t.Errorf("/%s was made on this machine", mark)
	}
	// This machine's directories: read-only to the sandbox's root under
	// an unprivileged emulator, a layer of its own under a root one
	// (TestTheSandboxsRootIsWritable); never this machine's to change.
	out, code = b.run(t, true, "touch /usr/"+mark+" 2>&1; ls -d /usr/bin /etc")
	readOnly := strings.Contains(out, "Read-only file system")
	if code != 0 || readOnly == (os.Geteuid() == 0) || !strings.Contains(out, "/etc\n/usr/bin\n") {
		t.Errorf("this machine's directories inside: exit %d, %q", code, out)
	}
	if _, err := os.Lstat("/usr/" + mark); err == nil {
		t.Errorf("/usr/%s was made on this machine", mark)
	}
	if want, err := os.Readlink("/bin"); err == nil {
		out, _ := b.run(t, false, "readlink /bin")
		if out != want+"\n" {
			t.Errorf("/bin inside links to %q, want %q", out, want)
		}
	}
}

// A box's user has passwordless sudo: the command runs as root, with the
// caller's streams, and sudo exits as it does.
func TestSudoInTheBox(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	for _, c := range []struct {
		line, want string
		code       int
	}{
		{"id -u; sudo id -u", "1000\n0\n", 0},
		{"echo piped | sudo cat", "piped\n", 0},
		{`cd /tmp && sudo sh -c 'echo $HOME $USER $SUDO_USER; pwd'`, "/root root user\n/tmp\n", 0},
		{"sudo sh -c 'exit 3'", "", 3},
		{"sudo no-such-command-here 2>&1", "sudo: no-such-command-here: command not found\n", 1},
		{"sudo -u nobody true 2>&1", "sudo: this sandbox's sudo runs commands as root only, not nobody\n", 1},
	} {
		out, code := b.run(t, false, c.line)
		if out != c.want || code != c.code {
			t.Errorf("%s: exit %d, %q; want exit %d, %q", c.line, code, out, c.code, c.want)
		}
	}
}
