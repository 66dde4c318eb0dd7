package boxinit_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/emulator/jail/boxinit"
)

// The init links only what the Go runtime sets up before any of abx's
// libraries: with any of these, it would start after them, and hold what
// they build when they start (cmd/abx's tests check the order itself).
func TestTheInitLinksLittle(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-json=Deps", ".")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var p struct{ Deps []string }
	if err := json.NewDecoder(bytes.NewReader(out)).Decode(&p); err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"net", "net/http", "os/signal", "os/exec", "path/filepath", "github.com/abx-dev/abx/internal/abxerr"} {
		if slices.Contains(p.Deps, banned) {
			t.Errorf("boxinit links %s", banned)
		}
	}
}

// Its statuses are abx's, though it cannot link abxerr to say so.
func TestStatusesAreAbxs(t *testing.T) {
	t.Parallel()
	if boxinit.ExitSetup != abxerr.ExitCannotRun || boxinit.ExitNotFound != abxerr.ExitCommandNotFound {
		t.Errorf("the init's statuses %d and %d, abx's %d and %d", boxinit.ExitSetup, boxinit.ExitNotFound,
			abxerr.ExitCannotRun, abxerr.ExitCommandNotFound)
	}
}
