//go:build unix

package emulator

import (
	"runtime"
	"testing"
)

func TestProcessorShare(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 16: 8} {
		if got := processorShare(n, false); got != want {
			t.Errorf("processorShare(%d) = %d, want %d", n, got, want)
		}
		if got := processorShare(n, true); got != n {
			t.Errorf("GOMAXPROCS=%d set: processorShare = %d, want %d", n, got, n)
		}
	}
}

// An emulator started again in the same process keeps the share it had.
func TestShareProcessorsHalvesOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	shareProcessors()
	n := runtime.GOMAXPROCS(0)
	shareProcessors()
	if got := runtime.GOMAXPROCS(0); got != n {
		t.Fatalf("a second start took %d processors, the first %d", got, n)
	}
}
