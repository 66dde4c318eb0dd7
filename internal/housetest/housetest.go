// Package housetest reads what abx's packages import and link, with go
// list, for the tests that hold its layers (docs/architecture.md): which
// package may link which. It also shows the test cache the directories of
// the packages it read, so that a change to any of them runs such a test
// again rather than reusing an answer go list gave before it.
package housetest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Module is the prefix of abx's import paths.
const Module = "github.com/abx-dev/abx/"

// Package is one package as go list tells it.
type Package struct {
	ImportPath string
	Dir        string
	Imports    []string // of its non-test files
	Standard   bool
}

// List runs go list with args and returns its packages.
func List(t testing.TB, args ...string) []Package {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,Imports,Standard"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []Package
	for d := json.NewDecoder(bytes.NewReader(out)); ; {
		var p Package
		if err := d.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p.ImportPath, Module) {
			// Opened, a directory is an input of the test for the
			// cache: its files' sizes and times.
			_, _ = os.ReadDir(p.Dir)
		}
		pkgs = append(pkgs, p)
	}
	if mod, err := exec.Command("go", "env", "GOMOD").Output(); err == nil {
		_, _ = os.Stat(strings.TrimSpace(string(mod)))
	}
	return pkgs
}

// Links returns the import paths of the packages pkg links, itself
// among them.
func Links(t testing.TB, pkg string) []string {
	t.Helper()
	var paths []string
	for _, p := range List(t, "-deps", pkg) {
		paths = append(paths, p.ImportPath)
	}
	return paths
}

// Refuse fails t for each package pkg links that is one of banned or
// below one of them.
func Refuse(t testing.TB, pkg string, banned ...string) {
	t.Helper()
	for _, dep := range Links(t, pkg) {
		if Within(dep, banned...) {
			t.Errorf("%s links %s", pkg, dep)
		}
	}
}

// Within reports whether path is one of roots or below one of them.
func Within(path string, roots ...string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}
