//go:build unix && !linux

package envd

import "os"

// watchPath is what fsnotify is given to watch the open directory f, at
// host on this machine: kqueue opens the entries of a directory by their
// paths, so it needs the directory's own.
func watchPath(_ *os.File, host string) string { return host }
