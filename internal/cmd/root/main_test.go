package root

import (
	"os"
	"testing"
	"time"

	"github.com/abx-dev/abx/internal/provider/alicloudcontainer"
	"github.com/abx-dev/abx/internal/testrun"
)

// These tests wait on fake servers, child processes and deadlines far more
// than they compute: run them side by side.
func TestMain(m *testing.M) {
	testrun.Parallel()
	testrun.QuickExits()
	// The stalled-stream cases wait out an idle bound of testIdle rather
	// than the shortest a user may set.
	alicloudcontainer.MinIdleTimeout = time.Second
	os.Exit(m.Run())
}
