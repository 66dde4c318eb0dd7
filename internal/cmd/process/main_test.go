//go:build unix

package process

import (
	"os"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
	"github.com/abx-dev/abx/internal/sandboxes"
	"github.com/abx-dev/abx/internal/testrun"
)

// The emulator's sandbox processes start this test binary as their init.
// The tests wait on sandbox processes far more than they compute: they run
// side by side. A lease may be as short as a second in this binary, so
// that a lease that is lost runs out in seconds, not in half a minute
// (TestRunStopsWhenTheLeaseIsLost), and a throwaway sandbox's end is
// bounded by 5 s, not 30 (TestRunBoundsAFetchStoppedMidway): the emulator
// kills a sandbox in milliseconds, so the bound still guards a hang only.
func TestMain(m *testing.M) {
	testrun.Parallel()
	testrun.QuickExits()
	// A stream no attempt takes up again fails at the end of a window of
	// a few seconds rather than the shortest idle bound a user may set.
	alicloudcontainer.MinIdleTimeout = time.Second
	sandboxes.Op("sandbox.run").Input("lease").Min = 1
	sandboxes.EndBound = 5 * time.Second
	os.Exit(m.Run())
}
