// Package sdktest runs official SDKs (E2B's, the MCP TypeScript SDK),
// pinned, as test clients of abx.
package sdktest

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stepsModule is steps.mjs, the steps' bookkeeping every script imports:
// step, equal, expect and finish, printing "ok NAME" or "not ok NAME".
//
//go:embed steps.mjs
var stepsModule []byte

// SDKScript makes ready to run the script name of testdata (a directory
// holding package.json and package-lock.json that pin the SDKs its scripts
// drive abx with): the SDKs installed once per lock file into the user's
// cache, the scripts beside them (they import them). Without node and npm
// it skips t,
// unless ABX_REQUIRE_SDK_TEST=1 (as in CI), where it fails it.
func SDKScript(t *testing.T, testdata, name string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("ABX_REQUIRE_SDK_TEST") == "1" {
				t.Fatalf("ABX_REQUIRE_SDK_TEST=1 but %s is not installed", tool)
			}
			t.Skipf("%s is not installed: the official SDKs these tests drive abx with run on Node.js (set ABX_REQUIRE_SDK_TEST=1 to make this a failure)", tool)
		}
	}
	dir := sdkModules(t, testdata)
	// Every script of testdata, for the modules they share, and the steps'
	// module every script imports (./steps.mjs).
	if err := writeAtomically(filepath.Join(dir, "steps.mjs"), stepsModule); err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(testdata, "*.mjs"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts in %s: %v", testdata, err)
	}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeAtomically(filepath.Join(dir, filepath.Base(s)), b); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, name)
}

// Steps runs a step script's output check: every "ok NAME" line counts,
// every "not ok" line is an error, and fewer than want oks fail t.
func Steps(t *testing.T, out []byte, runErr error, want int) {
	t.Helper()
	passed := 0
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "ok "):
			passed++
		case strings.HasPrefix(line, "not ok "):
			t.Error(line)
		}
	}
	if runErr != nil || passed != want {
		t.Fatalf("node: %v; %d of %d steps passed:\n%s", runErr, passed, want, out)
	}
}

// sdkModules installs the pinned SDKs (npm ci) into a directory of the
// user's cache named after the lock file, once, and returns it.
func sdkModules(t *testing.T, testdata string) string {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join(testdata, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join(testdata, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256(append(append([]byte{}, manifest...), lock...))
	dir := filepath.Join(cache, "abx-tests", "sdk-"+hex.EncodeToString(sum[:6]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return dir
	}
	// Installed beside, then moved into place: a run cut short never
	// leaves a half-installed directory that later runs would trust.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".sdk-install-")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	for name, b := range map[string][]byte{"package.json": manifest, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	install.Dir = tmp
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm ci of the pinned E2B SDKs: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		// Another run got there first: its directory is as good.
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); statErr != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func writeAtomically(path string, b []byte) error {
	tmp := path + ".tmp" + time.Now().Format("150405.000000000")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
