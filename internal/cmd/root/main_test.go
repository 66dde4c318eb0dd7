package root

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/emulator/jail"
)

// These tests wait on fake servers, child processes and deadlines far more
// than they compute: run them side by side.
func TestMain(m *testing.M) {
	jail.Init() // the test cluster's sandbox processes start this binary
	cmdtest.RaiseParallel()
	os.Exit(m.Run())
}
