// Package jailtest decides whether a test that needs isolated sandbox
// processes runs: on a developer's machine without user namespaces it is
// skipped with the reason; where ABX_REQUIRE_ISOLATION=1 (as in CI) it
// fails instead, so isolation is never skipped quietly.
package jailtest

import (
	"os"
	"testing"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// Need skips or fails t when sandbox processes cannot be isolated here.
func Need(t testing.TB) {
	t.Helper()
	err := jail.Available()
	if err == nil {
		return
	}
	if os.Getenv("ABX_REQUIRE_ISOLATION") == "1" {
		t.Fatalf("ABX_REQUIRE_ISOLATION=1 but %v", err)
	}
	t.Skipf("%v (set ABX_REQUIRE_ISOLATION=1 to make this a failure)", err)
}
