//go:build !unix

package tty

// Foreground is true: a console's Ctrl-C reaches every process attached
// to it, the children abx started with it.
func Foreground() bool { return true }
