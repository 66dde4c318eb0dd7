//go:build linux

package jail_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// A root emulator's sandbox has a root its root may write anywhere, as a
// container's: this machine's root under a layer of the sandbox's own, its
// top directory, which takes the writes; the user writes there where the
// modes say (nowhere this machine's root owns); nothing reaches this
// machine.
func TestTheSandboxsRootIsWritable(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("an unprivileged emulator's boxes bind this machine's directories read-only")
	}
	dir := t.TempDir()
	top := filepath.Join(dir, "top")
	if err := jail.Prepare(top, 0o755); err != nil {
		t.Fatal(err)
	}
	b := newBoxWith(t, true, func(s *jail.BoxSpec) { s.Top, s.Layers = top, filepath.Join(dir, "layers") })
	name := "abx-layer-test-" + filepath.Base(t.TempDir())
	out, code := b.run(t, true, `set -e
mkdir -p /usr/local/`+name+` /opt/`+name+` /workspace
echo made > /usr/local/`+name+`/f
echo made > /etc/`+name+`
stat -c '%u %a' /usr /usr/local /etc /workspace
cat /usr/local/`+name+`/f /etc/`+name)
	if code != 0 || out != "0 755\n0 755\n0 755\n0 755\nmade\nmade\n" {
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
	for _, f := range []string{"usr/local/" + name + "/f", "etc/" + name} {
		if got, err := os.ReadFile(filepath.Join(top, f)); err != nil || string(got) != "made\n" {
			t.Errorf("the sandbox's layer of /%s: %q, %v", f, got, err)
		}
	}
	if st, err := os.Stat(filepath.Join(top, "workspace")); err != nil || !st.IsDir() {
		t.Errorf("the sandbox's /workspace is not in its top: %v", err)
	}
}
