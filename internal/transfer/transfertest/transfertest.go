// Package transfertest helps the tests of what moves files between this
// machine and a sandbox: it makes a local tree, and reads one back.
package transfertest

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// WriteTree makes files (slash-separated path: contents) and empty
// directories under dir, with their parents.
func WriteTree(t *testing.T, dir string, files map[string]string, emptyDirs ...string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range emptyDirs {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// Tree maps every file under dir (slash-separated) to its contents, and
// every directory to "/".
func Tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[filepath.ToSlash(rel)] = "/"
			return nil
		}
		body, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// WantTree fails unless dir holds want, as Tree maps it: those files and
// directories, and nothing else.
func WantTree(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	if got := Tree(t, dir); !maps.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}
