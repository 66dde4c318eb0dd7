// Package testparallel lets more parallel tests run at once than the
// default GOMAXPROCS, for test packages whose tests wait (on servers,
// child processes, deadlines) far more than they compute. It imports
// nothing of abx's, so that any package's tests may use it without
// linking more than they test.
package testparallel

import (
	"flag"
	"runtime"
	"strconv"
)

// Raise lets at least 8 parallel tests run at once. Call it from TestMain
// before m.Run; an explicit -test.parallel still decides, as m.Run parses
// the command line after.
func Raise() {
	_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
}
