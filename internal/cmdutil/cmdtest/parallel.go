package cmdtest

import (
	"flag"
	"runtime"
	"strconv"
)

// RaiseParallel lets more parallel tests run at once than the default
// GOMAXPROCS, for test packages whose tests wait (on servers, child
// processes, deadlines) far more than they compute. Call it from TestMain
// before m.Run; an explicit -test.parallel still decides.
func RaiseParallel() {
	_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
}
