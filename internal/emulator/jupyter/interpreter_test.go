//go:build unix

package jupyter

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A version manager's shim is asked once which interpreter it runs; every
// kernel after that starts the interpreter itself.
func TestShimIsAskedOnce(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	shim := filepath.Join(dir, "shim-python")
	script := "#!/bin/sh\necho x >> '" + calls + "'\nexec '" + python + "' \"$@\"\n"
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// Contexts that start together ask it once between them.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _, _ = interpreter(shim) })
	}
	wg.Wait()
	f := start(t, Options{Python: shim, Command: hostCommand})
	id := f.createContext(`{}`)
	for _, body := range []map[string]any{code("import sys; sys.executable"), inContext(id, "import sys; sys.executable")} {
		got := find(f.run(body), "result").str("text")
		if got == "" || strings.Contains(got, "shim-python") {
			t.Fatalf("the kernel runs %q, want the interpreter behind the shim", got)
		}
	}
	b, err := os.ReadFile(calls)
	if err != nil || strings.Count(string(b), "x") != 1 {
		t.Fatalf("the shim ran %d times (%v), want once for four lookups and two kernels", strings.Count(string(b), "x"), err)
	}
}
