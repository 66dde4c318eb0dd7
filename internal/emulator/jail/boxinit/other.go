//go:build !linux

package boxinit

import (
	"fmt"
	"os"
)

func runBox(BoxSpec) int {
	fmt.Fprintln(os.Stderr, Name+": processes cannot be isolated on this system")
	return ExitSetup
}

func runExec(string, []string) int {
	fmt.Fprintln(os.Stderr, ExecName+": not on this system")
	return ExitSetup
}
