//go:build unix

package emulator

import (
	"os"
	"runtime"
	"sync"
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
// Once a process: an emulator started again in the same process (a
// test's) keeps the share rather than halving it again.
var shareProcessors = sync.OnceFunc(func() {
	_, set := os.LookupEnv("GOMAXPROCS")
	runtime.GOMAXPROCS(processorShare(runtime.GOMAXPROCS(0), set))
})

// processorShare is the emulator's share of the n processors the runtime
// uses: all of them when GOMAXPROCS set n.
func processorShare(n int, set bool) int {
	if set {
		return n
	}
	return max(1, n/2)
}
