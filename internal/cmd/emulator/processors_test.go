//go:build unix

package emulator

import (
	"os"
	"runtime"
	"testing"
)

func TestProcessorShare(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 16: 8} {
		if got := processorShare(n); got != want {
			t.Errorf("processorShare(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestShareProcessorsHonoursGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	t.Setenv("GOMAXPROCS", "4")
	shareProcessors()
	if got := runtime.GOMAXPROCS(0); got != 4 {
		t.Fatalf("GOMAXPROCS=4 set, and the emulator took %d processors", got)
	}
	t.Setenv("GOMAXPROCS", "")
	_ = os.Unsetenv("GOMAXPROCS")
	shareProcessors()
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("without GOMAXPROCS, 4 processors: the emulator took %d, want 2", got)
	}
}
