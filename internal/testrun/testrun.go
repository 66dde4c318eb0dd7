// Package testrun is what the test binary of a package whose tests wait
// (on servers, on the processes they start, on deadlines) far more than
// they compute sets before it runs them. It imports nothing of abx's, so
// that any package's tests may use it without linking more than they test.
package testrun

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
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

// RunWithoutRawLog runs m with Go's standard logger writing to a buffer,
// and fails the run when anything reached it: abx says what it has to say
// through writers of its own, and a raw line of a library's (a reverse
// proxy's "read error during body copy", a server's "TLS handshake
// error") would reach a user's terminal, or a wrapped program's stderr,
// as it is. It returns m.Run's code, or 1.
func RunWithoutRawLog(m interface{ Run() int }) int {
	var raw Buffer
	log.SetOutput(&raw)
	code := m.Run()
	if s := raw.String(); s != "" {
		fmt.Fprintf(os.Stderr, "FAIL: Go's standard logger was written to, which reaches users as it is:\n%s", s)
		return 1
	}
	return code
}

// Buffer is a buffer goroutines write while a test reads it: a command's
// stderr, a server's lines, the standard logger's.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
