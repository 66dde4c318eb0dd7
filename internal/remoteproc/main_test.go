package remoteproc

import (
	"os"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/testrun"
)

// The tests wait on fake servers and child processes far more than they
// compute: they run side by side.
func TestMain(m *testing.M) {
	testrun.Parallel()
	// A session whose keys envd refused ends a moment later, not after the
	// wait a stream's end is given on a real network.
	refusedWait = 100 * time.Millisecond
	os.Exit(m.Run())
}
