package remoteproc

import (
	"os"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// A session whose keys envd refused ends a moment later, not after the
	// wait a stream's end is given on a real network.
	refusedWait = 100 * time.Millisecond
	os.Exit(m.Run())
}
