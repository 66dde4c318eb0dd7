//go:build unix

package emulator

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/emulator/sdktest"
)

// sdkSteps is how many steps testdata/sdk/sdk.test.mjs reports (one more
// where sandboxes are isolated): a run that says less stopped early.
const sdkSteps = 26

// The official E2B JS SDK and code-interpreter SDK, pinned in
// testdata/sdk/package-lock.json, drive the emulator as they would a
// cluster: commands, files, code, list, pause and kill. They are installed
// from npm once per lock file into the user's cache. Without node and npm
// the test is skipped, unless ABX_REQUIRE_SDK_TEST=1 (as in CI).
func TestOfficialSDKs(t *testing.T) {
	t.Parallel()
	run := sdktest.SDKScript(t, filepath.Join("testdata", "sdk"), "sdk.test.mjs")

	e, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", run)
	cmd.Dir = filepath.Dir(run)
	cmd.Env = append(os.Environ(), "E2B_API_URL="+e.URL, "E2B_SANDBOX_URL="+e.URL, "E2B_API_KEY="+e.APIKey,
		"E2B_DOMAIN=", "E2B_DEBUG=")
	steps := sdkSteps
	if e.Isolated {
		// A box's user has sudo (docs/emulator.md).
		cmd.Env = append(cmd.Env, "SANDBOX_SUDO=1")
		steps++
	}
	out, err := cmd.CombinedOutput()
	sdktest.Steps(t, out, err, steps)
}
