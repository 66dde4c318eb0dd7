package files

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/testrun"
)

// These tests wait on the emulator's sandboxes far more than they
// compute: run them side by side.
func TestMain(m *testing.M) {
	testrun.Parallel()
	testrun.QuickExits()
	os.Exit(m.Run())
}
