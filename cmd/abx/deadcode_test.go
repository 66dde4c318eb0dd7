package main

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestLinkerPrunesMethods guards abx's start-up: a reachable call of
// reflect's Method or MethodByName with a name not known when compiling
// (text/template's executor has one: any cobra Set...Template links it)
// makes the linker keep every exported method of every type abx links.
// That took abx from 15 MB to 19 MB, and some 60 pages more touched at
// every start (docs/performance.md). The linker's -dumpdep marks such a
// caller <ReflectMethod>.
func TestLinkerPrunesMethods(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	if testing.Short() {
		t.Skip("links abx")
	}
	build := exec.Command("go", "build", "-o", os.DevNull, "-ldflags=-dumpdep", ".")
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%.2000s", err, out)
	}
	for line := range bytes.Lines(out) {
		if bytes.Contains(line, []byte("<ReflectMethod>")) {
			t.Fatalf("a reachable function calls reflect's Method or MethodByName, so the linker keeps every exported method:\n%s"+
				"(the lines of go build -ldflags=-dumpdep ./cmd/abx before it tell what reaches it)", line)
		}
	}
}
