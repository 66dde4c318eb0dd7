package code

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/testparallel"
)

// These tests wait on fake servers, child processes and deadlines far more
// than they compute: run them side by side.
func TestMain(m *testing.M) {
	testparallel.Raise()
	os.Exit(m.Run())
}
