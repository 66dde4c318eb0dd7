//go:build !race

// Allocation counts under the race detector are its own, not abx's: these
// tests run without it (CI's allocation step).

package remoteproc

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/envd/envdtest"
)

// allocsOfTerminal counts the allocations of one terminal session whose
// program prints n chunks: envd's client, the follower, the screen.
func allocsOfTerminal(t *testing.T, n int) uint64 {
	t.Helper()
	url := envdtest.Serve(t, envdtest.Started(t, n, 16<<10, true))
	c := envd.New(&http.Client{}, envd.Endpoint{URL: url, Version: "0.2.10"}, "user")
	return envdtest.Allocs(func() {
		term := &Terminal{Spec: Spec{Argv: []string{"/bin/bash", "-l"}}, Size: envd.Size{Cols: 80, Rows: 24},
			Keys: bytes.NewReader(nil), Screen: io.Discard}
		x, err := term.Run(t.Context(), c)
		if err != nil || x.Code != 0 {
			t.Fatalf("%v, %+v", err, x)
		}
	})
}

// A terminal's output costs at most what a command's does (2.0 an event,
// connect-go's own envelope read; at most 2.5): each chunk goes to the
// screen as it came, copied nowhere.
func TestTerminalOutputAllocatesNothingPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations of two sessions")
	}
	small, large := allocsOfTerminal(t, 100), allocsOfTerminal(t, 1100)
	per := envdtest.PerEvent(small, large, 1000)
	t.Logf("%d allocations for 100 events, %d for 1100: %.2f an event", small, large, per)
	if per > 2.5 {
		t.Fatalf("%.2f allocations a terminal output event (at most 2.5)", per)
	}
}
