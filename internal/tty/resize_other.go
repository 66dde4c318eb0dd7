//go:build !unix

package tty

import "os"

// notifyResize has no signal to listen to here: the poll sees resizes.
func notifyResize() (<-chan os.Signal, func()) { return nil, func() {} }
