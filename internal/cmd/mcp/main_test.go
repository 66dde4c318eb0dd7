//go:build unix

package mcp

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/testrun"
)

// The emulator's sandbox processes start this test binary as their init.
func TestMain(m *testing.M) {
	testrun.Parallel()
	testrun.QuickExits()
	os.Exit(m.Run())
}
