//go:build unix

package mcp

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/cmdutil/cmdtest"
)

// The emulator's sandbox processes start this test binary as their init.
func TestMain(m *testing.M) {
	cmdtest.RaiseParallel()
	os.Exit(m.Run())
}
