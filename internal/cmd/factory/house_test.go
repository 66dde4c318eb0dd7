package factory

import (
	"testing"

	"github.com/abx-dev/abx/internal/housetest"
)

// Every run of abx builds the Factory, and few run the emulator: the
// factory reads an emulator's record (for a profile that points at one)
// through package record and links none of the emulator's servers.
func TestNoEmulatorInTheFactory(t *testing.T) {
	t.Parallel()
	const record = housetest.Module + "internal/emulator/record"
	for _, dep := range housetest.Links(t, housetest.Module+"internal/cmd/factory") {
		if housetest.Within(dep, housetest.Module+"internal/emulator") && dep != record {
			t.Errorf("the factory links %s: read the emulator's record through %s", dep, record)
		}
	}
}
