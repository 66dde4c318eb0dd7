//go:build unix

package envd

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	client "github.com/abx-dev/abx/internal/envd"
)

// What envd makes has the modes envd gives, whatever the umask of the
// machine the emulator runs on: an upload's new file 0644 (envd creates
// it 0666, less its umask, 022), a directory 0755; a file an upload
// replaces in place keeps its mode, as envd truncates it. Stat reports
// the permission bits in mode and Go's mode string in permissions, on
// every version.
func TestWhatEnvdMakesHasEnvdsModes(t *testing.T) {
	// Not parallel: the umask is the process's.
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, v := range []string{"0.2.10", "0.6.13"} {
		c, s, _ := start(t, v, "user")
		ctx := context.Background()
		if err := c.Write(ctx, "new/a.txt", strings.NewReader("a")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.MakeDir(ctx, "d/e"); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(s.Home(), "run.sh")
		if err := os.WriteFile(script, []byte("old"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(script, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := c.Write(ctx, "run.sh", strings.NewReader("new")); err != nil {
			t.Fatal(err)
		}
		for p, want := range map[string]string{"new/a.txt": "-rw-r--r--", "new": "drwxr-xr-x", "d": "drwxr-xr-x",
			"d/e": "drwxr-xr-x", "run.sh": "-rwxr-xr-x"} {
			e, err := c.Stat(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			bits := uint32(0o644)
			switch want[0] {
			case 'd':
				bits = 0o755
			case '-':
				if want[3] == 'x' {
					bits = 0o755
				}
			}
			if e.Permissions != want || e.Mode != bits {
				t.Errorf("%s %s: mode %o, permissions %q; want %o, %q", v, p, e.Mode, e.Permissions, bits, want)
			}
		}
	}
}

// The sandbox's chmod gives files their modes, any name going as it is:
// one that starts with a dash, one with a space or a quote; a path that
// is not there fails with the sandbox's words.
func TestChmodGivesModes(t *testing.T) {
	t.Parallel()
	c, s, _ := start(t, "0.2.10", "user")
	ctx := context.Background()
	names := []string{"-n", "a b'c", "sub/x.sh"}
	for _, n := range names {
		p := filepath.Join(s.Home(), "t", filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := c.Chmod(ctx, "t", []client.PathMode{{Path: "-n", Mode: 0o600}, {Path: "a b'c", Mode: 0o755}, {Path: "sub/x.sh", Mode: 0o755},
		{Path: "sub", Mode: 0o500}, {Path: filepath.Join(s.Home(), "t"), Mode: 0o750}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(s.Home(), "t", "sub"), 0o755) })
	for p, want := range map[string]fs.FileMode{"-n": 0o600, "a b'c": 0o755, "sub/x.sh": 0o755, "sub": 0o500, ".": 0o750} {
		st, err := os.Stat(filepath.Join(s.Home(), "t", filepath.FromSlash(p)))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", p, st.Mode(), err, want)
		}
	}
	err = c.Chmod(ctx, "t", []client.PathMode{{Path: "missing", Mode: 0o644}})
	if e := abxerr.From(err); e == nil || e.Code != abxerr.Rejected || !strings.Contains(e.Message, "could not set the modes of files in t: chmod:") {
		t.Errorf("error %v", err)
	}
}
