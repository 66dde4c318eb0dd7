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

func runSudo([]string) int {
	fmt.Fprintln(os.Stderr, "sudo: this is abx's sudo, which works inside an emulated sandbox only")
	return 1
}
