//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package tty

// discardInput leaves the input as it is: this system's terminal has no
// call for it that abx knows.
func discardInput(int) error { return nil }
