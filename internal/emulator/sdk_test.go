//go:build unix

package emulator

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sdkSteps is how many steps testdata/sdk/sdk.test.mjs reports: a run that
// says less stopped early.
const sdkSteps = 26

// The official E2B JS SDK and code-interpreter SDK, pinned in
// testdata/sdk/package-lock.json, drive the emulator as they would a
// cluster: commands, files, code, list, pause and kill. They are installed
// from npm once per lock file into the user's cache. Without node and npm
// the test is skipped, unless ABX_REQUIRE_SDK_TEST=1 (as in CI).
func TestOfficialSDKs(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("ABX_REQUIRE_SDK_TEST") == "1" {
				t.Fatalf("ABX_REQUIRE_SDK_TEST=1 but %s is not installed", tool)
			}
			t.Skipf("%s is not installed: the official E2B SDK runs on Node.js (set ABX_REQUIRE_SDK_TEST=1 to make this a failure)", tool)
		}
	}
	dir := sdkModules(t)
	script, err := os.ReadFile(filepath.Join("testdata", "sdk", "sdk.test.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script imports the SDKs: it runs beside their node_modules.
	run := filepath.Join(dir, "sdk.test.mjs")
	if err := writeAtomically(run, script); err != nil {
		t.Fatal(err)
	}

	e, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", run)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "E2B_API_URL="+e.URL, "E2B_SANDBOX_URL="+e.URL, "E2B_API_KEY="+e.APIKey,
		"E2B_DOMAIN=", "E2B_DEBUG=")
	out, err := cmd.CombinedOutput()
	passed := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ok "):
			passed++
		case strings.HasPrefix(line, "not ok "):
			t.Error(line)
		}
	}
	if err != nil || passed != sdkSteps {
		t.Fatalf("node: %v; %d of %d steps passed:\n%s", err, passed, sdkSteps, out)
	}
}

// sdkModules installs the pinned SDKs (npm ci) into a directory of the
// user's cache named after the lock file, once, and returns it.
func sdkModules(t *testing.T) string {
	t.Helper()
	lock, err := os.ReadFile(filepath.Join("testdata", "sdk", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := os.ReadFile(filepath.Join("testdata", "sdk", "package.json"))
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
