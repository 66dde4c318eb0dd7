//go:build linux

package emulator

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A clone's top is copied in this process as cp -a would: links, modes
// (a read-only directory's too, given after what is in it), times, owners,
// extended attributes, and an overlay's whiteouts.
func TestCopyDirKeepsWhatCpAWould(t *testing.T) {
	t.Parallel()
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "top")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(src, "usr/local/bin"), 0o755))
	must(os.WriteFile(filepath.Join(src, "usr/local/bin/tool"), []byte("#!/bin/sh\n"), 0o755))
	must(os.Symlink("usr/local/bin", filepath.Join(src, "bin")))
	must(os.Mkdir(filepath.Join(src, "ro"), 0o755))
	must(os.WriteFile(filepath.Join(src, "ro/kept"), []byte("k"), 0o600))
	must(os.Chmod(filepath.Join(src, "ro"), 0o555))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	must(os.Chtimes(filepath.Join(src, "usr/local/bin/tool"), old, old))
	whiteout := os.Geteuid() == 0 && unix.Mknod(filepath.Join(src, "gone"), unix.S_IFCHR, 0) == nil
	xattr := unix.Lsetxattr(filepath.Join(src, "usr"), "user.abx-test", []byte("y"), 0) == nil

	must(copyDir(src, dst))

	st, err := os.Stat(filepath.Join(dst, "usr/local/bin/tool"))
	if err != nil || st.Mode().Perm() != 0o755 || !st.ModTime().Equal(old) {
		t.Errorf("the file: %v %v", st, err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "bin")); err != nil || l != "usr/local/bin" {
		t.Errorf("the link: %q %v", l, err)
	}
	if st, err := os.Stat(filepath.Join(dst, "ro")); err != nil || st.Mode().Perm() != 0o555 {
		t.Errorf("the read-only directory: %v %v", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "ro/kept")); err != nil || string(b) != "k" {
		t.Errorf("what the read-only directory holds: %q %v", b, err)
	}
	if whiteout {
		st, err := os.Lstat(filepath.Join(dst, "gone"))
		if err != nil || st.Mode()&os.ModeCharDevice == 0 || st.Sys().(*syscall.Stat_t).Rdev != 0 {
			t.Errorf("the whiteout: %v %v", st, err)
		}
	}
	if xattr {
		buf := make([]byte, 8)
		if n, err := unix.Lgetxattr(filepath.Join(dst, "usr"), "user.abx-test", buf); err != nil || string(buf[:n]) != "y" {
			t.Errorf("the extended attribute: %q %v", buf[:n], err)
		}
	}
	must(os.Chmod(filepath.Join(src, "ro"), 0o755))
	must(os.Chmod(filepath.Join(dst, "ro"), 0o755))
}
