//go:build unix

package envd

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readyReader returns a func that reads into buf what r has ready now,
// never waiting, and returns how much; nil where r is not a non-blocking
// file (a read there could wait). A pump calls it after each read, so
// that one event carries what came in the meantime: a terminal's master
// gives at most 4 KiB a read (the line discipline's buffer), and an event
// a read would cost a hand-off, a message and a client's wake-up each
// (docs/performance.md, "Terminals"). A pipe's read takes all there is, up
// to the pump's buffer, so there it joins only what came during the
// first: measured, exec's 256 MiB went from 0.39 s to 0.32 s with this
// and batchWriter together (the emulator on two processors), and was no
// slower with this on one.
func readyReader(r io.Reader) func(buf []byte) int {
	f, ok := r.(*os.File)
	if !ok {
		return nil
	}
	raw, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	flags := 0
	cerr := raw.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) })
	if cerr != nil || err != nil || flags&unix.O_NONBLOCK == 0 {
		return nil
	}
	return func(buf []byte) int {
		n := 0
		_ = raw.Read(func(fd uintptr) bool {
			for n < len(buf) {
				m, err := unix.Read(int(fd), buf[n:])
				if err != nil || m <= 0 {
					break
				}
				n += m
			}
			return true // done, whatever came: never wait for more
		})
		return n
	}
}
