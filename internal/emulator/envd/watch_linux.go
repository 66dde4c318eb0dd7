package envd

import (
	"os"
	"strconv"
)

// watchPath is what inotify is given to watch the open directory f: the
// descriptor's own name, which leads to f whatever its path has become.
func watchPath(f *os.File, _ string) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }
