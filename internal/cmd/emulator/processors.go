//go:build unix

package emulator

import (
	"os"
	"runtime"
)

// shareProcessors gives the emulator's Go code half the processors the
// runtime would use (at least one), unless GOMAXPROCS says otherwise. The
// emulator relays bytes between processes on the same machine: its
// sandboxes' commands on one side, its clients on the other, each of
// which needs a processor of its own while the bytes flow. With every
// processor its own, the emulator's hand-offs between goroutines (a pty
// read to its stream, a stream to its connection) wake idle processors
// that those processes need, and on a 2-processor machine a terminal's
// output ran at 0.71× of its floor instead of 0.90× (docs/performance.md,
// "Terminals"; concurrent streams and command start-up were unchanged).
func shareProcessors() {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return
	}
	runtime.GOMAXPROCS(processorShare(runtime.GOMAXPROCS(0)))
}

// processorShare is the emulator's share of n processors.
func processorShare(n int) int { return max(1, n/2) }
