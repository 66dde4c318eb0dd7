//go:build unix

package process

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// The emulator's sandbox processes start this test binary as their init.
// The tests wait on sandbox processes far more than they compute: they run
// side by side.
func TestMain(m *testing.M) {
	cmdtest.RaiseParallel()
	os.Exit(m.Run())
}
