// Package testrun is what the test binary of a package whose tests wait
// (on servers, on the processes they start, on deadlines) far more than
// they compute sets before it runs them. It imports nothing of abx's, so
// that any package's tests may use it without linking more than they test.
package testrun

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Parallel lets at least 16 parallel tests run at once, more than the
// default GOMAXPROCS. Call it from TestMain before m.Run; an explicit
// -test.parallel still decides, as m.Run parses the command line after.
func Parallel() {
	_ = flag.Set("test.parallel", strconv.Itoa(max(16, runtime.GOMAXPROCS(0))))
}

// QuickExits has the programs this test binary starts exit at once when
// they are built with the race detector, as a test binary under -race
// starting itself is (the stories' abx, a sandbox's init): the detector
// otherwise sleeps a second at each exit (GORACE's atexit_sleep_ms), which a
// story of a hundred commands would wait out a hundred times. Races are
// still found while they run. What GORACE says already comes after, and
// wins. Call it from TestMain before m.Run.
func QuickExits() {
	_ = os.Setenv("GORACE", strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE")))
}
