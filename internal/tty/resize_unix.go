//go:build unix

package tty

import (
	"os"
	"os/signal"
	"syscall"
)

// notifyResize tells of SIGWINCH, the terminal's word that its size
// changed.
func notifyResize() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	return ch, func() { signal.Stop(ch) }
}
