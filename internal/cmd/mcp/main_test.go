//go:build unix

package mcp

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/testparallel"
)

// The emulator's sandbox processes start this test binary as their init.
func TestMain(m *testing.M) {
	testparallel.Raise()
	os.Exit(m.Run())
}
