package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate runs the generator into a fresh directory with this
// environment, and returns every file it wrote by relative path.
func generate(t *testing.T, env map[string]string) (map[string][]byte, string) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	if err := run(filepath.Join(dir, "md"), filepath.Join(dir, "man")); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, dir
}

// The pages are committed and CI regenerates them, so they must not depend
// on who runs the generator, where, or when.
func TestOutputIsTheSameOnEveryMachine(t *testing.T) {
	home1, home2 := t.TempDir(), t.TempDir()
	a, dirA := generate(t, map[string]string{"HOME": home1, "XDG_STATE_HOME": filepath.Join(home1, "state"),
		"TMPDIR": home1, "USER": "alice", "ABX_PROVIDER": "alicloud-container", "SOURCE_DATE_EPOCH": "1"})
	b, _ := generate(t, map[string]string{"HOME": home2, "XDG_STATE_HOME": "", "TMPDIR": home2,
		"USER": "bob", "ABX_PROVIDER": "", "SOURCE_DATE_EPOCH": ""})
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for name, page := range a {
		if !bytes.Equal(page, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
		for _, local := range []string{home1, dirA, "alice", "1970"} {
			if bytes.Contains(page, []byte(local)) {
				t.Errorf("%s contains %q, which belongs to the machine or the moment", name, local)
			}
		}
	}
	for _, want := range []string{"md/README.md", "md/abx.md", "md/abx_exec.md", "md/abx_files_cp.md",
		"md/abx_help_environment.md", "man/abx.1", "man/abx-exec.1", "man/abx-help-exit-codes.1"} {
		if a[want] == nil {
			t.Errorf("%s was not written", want)
		}
	}
	for name, page := range a {
		if strings.HasSuffix(name, ".1") && !bytes.Contains(page, []byte(`.TH "ABX" "1" "" "abx" "abx manual"`)) {
			t.Errorf("%s: unexpected header:\n%s", name, page[:min(len(page), 200)])
		}
		if bytes.Contains(page, []byte("Auto generated")) {
			t.Errorf("%s carries cobra's dated auto-gen tag", name)
		}
	}
}

// A page whose command is gone is removed; other files are left alone.
func TestStalePagesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	md, man := filepath.Join(dir, "md"), filepath.Join(dir, "man")
	for _, f := range []string{filepath.Join(md, "abx_gone.md"), filepath.Join(man, "abx-gone.1"), filepath.Join(md, "notes.txt")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(md, man); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{filepath.Join(md, "abx_gone.md"), filepath.Join(man, "abx-gone.1")} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(md, "notes.txt")); err != nil {
		t.Errorf("a file the generator does not own was touched: %v", err)
	}
}
