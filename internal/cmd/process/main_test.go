//go:build unix

package process

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// The emulator's sandbox processes start this test binary as their init.
// The tests wait on sandbox processes far more than they compute: they run
// side by side. A lease may be as short as a second in this binary, so
// that a lease that is lost runs out in seconds, not in half a minute
// (TestRunStopsWhenTheLeaseIsLost).
func TestMain(m *testing.M) {
	cmdtest.RaiseParallel()
	sandboxes.Op("sandbox.run").Input("lease").Min = 1
	os.Exit(m.Run())
}
