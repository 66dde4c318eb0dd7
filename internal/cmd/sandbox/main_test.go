//go:build unix

package sandbox

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// The emulator's sandbox processes start this test binary as their init.
func TestMain(m *testing.M) {
	jail.Init()
	os.Exit(m.Run())
}
