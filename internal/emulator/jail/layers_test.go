//go:build linux

package jail_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// A root emulator's sandbox has a root its root may write anywhere, as a
// container's: this machine's directories under a layer of the sandbox's
// own, which takes the writes; the user writes there where the modes say
// (nowhere this machine's root owns); nothing reaches this machine.
func TestTheSandboxsRootIsWritable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("an unprivileged emulator's boxes bind this machine's directories read-only")
	}
	layers := filepath.Join(t.TempDir(), "layers")
	b := newBoxWith(t, true, func(s *jail.BoxSpec) { s.Layers = layers })
	name := "abx-layer-test-" + filepath.Base(t.TempDir())
	out, code := b.run(t, true, `set -e
mkdir -p /usr/local/`+name+` /opt/`+name+`
echo made > /usr/local/`+name+`/f
echo made > /etc/`+name+`
stat -c '%u %a' /usr /usr/local /etc
cat /usr/local/`+name+`/f /etc/`+name)
	if code != 0 || out != "0 755\n0 755\n0 755\nmade\nmade\n" {
		t.Fatalf("root in the sandbox: exit %d\n%s", code, out)
	}
	out, code = b.run(t, false, `{ touch /usr/local/`+name+`/u || echo refused; } 2>/dev/null; { echo x >> /etc/`+name+` || echo refused; } 2>/dev/null; id -u | xargs test 1000 -eq && sudo id -u`)
	if code != 0 || out != "refused\nrefused\n0\n" {
		t.Errorf("the user in the sandbox: exit %d\n%s", code, out)
	}
	for _, p := range []string{"/usr/local/" + name, "/opt/" + name, "/etc/" + name} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made on this machine", p)
		}
	}
	if got, err := os.ReadFile(filepath.Join(layers, "usr", "upper", "local", name, "f")); err != nil || string(got) != "made\n" {
		t.Errorf("the sandbox's layer of /usr: %q, %v", got, err)
	}
}
