package mcpserver_test

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// The tests over the emulator wait on its sandboxes far more than they
// compute: more of them run at once than the processors (an explicit
// -test.parallel still decides). The emulator's sandbox processes start
// this test binary as their init.
func TestMain(m *testing.M) {
	_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	os.Exit(m.Run())
}
