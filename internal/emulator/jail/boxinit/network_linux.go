//go:build linux

package boxinit

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/abx-dev/abx/internal/emulator/jail/rtnl"
)

// A box with a network of its own (BoxSpec.OwnNetwork) is a network
// namespace whose only interface is its loopback: a server a sandbox
// starts listens there, where no other sandbox's collides with it and
// nothing on this machine sees it, and a connection from inside to
// 127.0.0.1 reaches the box's own servers, never this machine's. The
// emulator is not in that namespace (and an unprivileged one may not
// enter it), so the init, which is, makes each connection to a port the
// gateway forwards to and hands its descriptor over.

// loopbackUp brings the namespace's loopback up: a new namespace's is down.
func loopbackUp() error {
	if err := rtnl.Up("lo"); err != nil {
		return fmt.Errorf("the box's loopback: %w", err)
	}
	return nil
}

// dialWait bounds a connection to a port of the box: on the loopback it is
// made at once or refused, unless the listener's queue is full.
const dialWait = 10 * time.Second

// dialLoopback connects to port on the box's loopback. The socket is
// non-blocking and waited on through the runtime's poller, within
// dialWait: a server whose queue is full holds no thread of the init.
func dialLoopback(port int) (*os.File, error) {
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("no port %d", port)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	err = unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	if err != nil && !errors.Is(err, unix.EINPROGRESS) {
		_ = unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "conn")
	if err == nil {
		return f, nil
	}
	_ = f.SetWriteDeadline(time.Now().Add(dialWait))
	if err := AwaitConnect(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// AwaitConnect waits, through the runtime's poller, for the connection a
// non-blocking connect started on f: nil once it is made, the socket's
// error if it failed, os.ErrDeadlineExceeded past f's write deadline.
// No thread is held meanwhile.
func AwaitConnect(f *os.File) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var soErr int
	var gerr error
	werr := raw.Write(func(fd uintptr) bool {
		soErr, gerr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR)
		// Not yet connected: SO_ERROR is 0 and the socket not writable.
		if gerr == nil && soErr == 0 {
			if _, perr := unix.Getpeername(int(fd)); errors.Is(perr, unix.ENOTCONN) {
				return false
			}
		}
		return true
	})
	switch {
	case werr != nil:
		return werr
	case gerr != nil:
		return gerr
	case soErr != 0:
		return unix.Errno(soErr)
	}
	return nil
}

// dial answers a dial: the connection's descriptor, or why there is none.
func dial(c *Conn, port int) {
	f, err := dialLoopback(port)
	if err != nil {
		_ = c.Send(Message{Op: OpConn, Error: err.Error()})
		return
	}
	_ = c.Send(Message{Op: OpConn}, f)
	_ = f.Close()
}
