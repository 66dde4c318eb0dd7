//go:build unix

package spawn

import (
	"bufio"
	"bytes"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// InheritsSignals reports whether a process this one starts would inherit
// ignored or blocked signals: this process was started with them (a
// script's `abx emulator start &` ignores SIGINT, nohup SIGHUP, some
// runners block signals), and Go passes ignores and the mask it started
// with to every child. A sandbox's processes start as under a real init,
// with neither: where they would inherit some, they start through the
// trampoline (package boxinit), which resets them. Asked once, of a
// process started for the purpose: what it says of its own signals is
// what every child gets.
var InheritsSignals = sync.OnceValue(func() bool {
	if runtime.GOOS != "linux" {
		return false // no trampoline there
	}
	out, err := exec.Command("cat", "/proc/self/status").Output()
	if err != nil {
		return true // unknown: the trampoline costs a start, nothing more
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "SigBlk" && name != "SigIgn") {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64); err != nil || n != 0 {
			return true
		}
	}
	return false
})
