package emulator

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/testrun"
)

// The sandboxes' processes start this test binary as their init. The
// tests wait on sandboxes and their clocks far more than they compute:
// they run side by side.
func TestMain(m *testing.M) {
	testrun.Parallel()
	testrun.QuickExits()
	os.Exit(testrun.RunWithoutRawLog(m))
}
