//go:build linux

package boxinit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// The init listens on a Unix socket of the SOCK_SEQPACKET kind: one
// message is one JSON object, sent and read whole, and may carry
// descriptors. Two kinds of conversation:
//
//   - control: "stop" and "cont" pause and resume everything in the box
//     where no cgroup can; "dial" connects to a port of the box's own
//     loopback, which only a process in its network can do, and answers
//     with the connection's descriptor; "trap" hands over the box's
//     connect trap (BoxSpec.Carry);
//   - a command's: the emulator sends the command ("spec") with its
//     standard streams and extra descriptors, then signals; the init
//     answers with the command's pid in the box, then how it ended. The
//     connection is the emulator's handle on the command: closed before
//     the end, it kills the command's process group.

// Message is one message of either kind.
type Message struct {
	Op     string `json:"op"`
	Spec   *Spec  `json:"spec,omitempty"`
	Signal int    `json:"signal,omitempty"`
	// Group sends Signal to the command's process group too.
	Group bool `json:"group,omitempty"`
	PID   int  `json:"pid,omitempty"`
	// Port is the loopback port a dial is for.
	Port int `json:"port,omitempty"`
	// Status is the command's wait status, as the kernel gives it.
	Status *int `json:"status,omitempty"`
	// Error says why the command could not start, or the dial failed.
	Error string `json:"error,omitempty"`
}

// Operations.
const (
	OpStop   = "stop"   // control: SIGSTOP every process of the box
	OpCont   = "cont"   // control: SIGCONT them
	OpDone   = "done"   // the init's answer to stop and cont
	OpSpec   = "spec"   // the command, its descriptors attached
	OpSignal = "signal" // a signal for the command (and its group)
	OpPID    = "pid"    // init: the command started, its pid in the box
	OpExit   = "exit"   // init: how it ended (Status), or why it never ran (Error)
	OpDial   = "dial"   // control: connect to Port of the box's loopback
	OpConn   = "conn"   // init: the connection, its descriptor attached (or Error)
	OpTrap   = "trap"   // control: the connect trap and the resolvers' sockets, attached (once)
)

// maxMessage bounds one message: a spec holds a command line and its
// environment.
const maxMessage = 1 << 20

// Conn is one end of a connection to the init's socket, served through
// the runtime's poller: a read waiting for a message holds no thread.
type Conn struct {
	raw syscall.RawConn
	c   io.Closer
}

// NewConn is a Conn over c: a *net.UnixConn on the emulator's side, a
// non-blocking socket's *os.File on the init's.
func NewConn(c interface {
	syscall.Conn
	io.Closer
}) (*Conn, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return nil, err
	}
	return &Conn{raw: raw, c: c}, nil
}

// Send sends m with files, of which the peer gets copies. Like exec.Cmd,
// it puts each file in blocking mode first: a descriptor is shared with
// the process that gets it, which expects one.
func (c *Conn) Send(m Message, files ...*os.File) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = syscall.UnixRights(fds...)
	}
	var serr error
	err = c.raw.Write(func(fd uintptr) bool {
		serr = unix.Sendmsg(int(fd), b, oob, nil, 0)
		return !errors.Is(serr, unix.EAGAIN)
	})
	runtime.KeepAlive(files)
	if err != nil {
		return err
	}
	return serr
}

// Recv reads one message and the descriptors it carries, which the
// caller owns; io.EOF once the peer has closed. Its buffer is the
// message's size, learnt first: a command waiting for its end holds one
// read open all the while, in the init and in the emulator.
func (c *Conn) Recv() (Message, []*os.File, error) {
	var size, n, oobn int
	buf, oob := []byte(nil), make([]byte, syscall.CmsgSpace(4*64))
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		size, _, rerr = unix.Recvfrom(int(fd), nil, unix.MSG_PEEK|unix.MSG_TRUNC)
		if errors.Is(rerr, unix.EAGAIN) {
			return false
		}
		if rerr != nil || size > maxMessage {
			return true
		}
		buf = make([]byte, max(size, 1))
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
		return true
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return Message{}, nil, err
	}
	if size > maxMessage {
		return Message{}, nil, fmt.Errorf("a message of %d bytes", size)
	}
	var files []*os.File
	if oobn > 0 {
		cmsgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return Message{}, nil, err
		}
		for _, cm := range cmsgs {
			fds, err := syscall.ParseUnixRights(&cm)
			if err != nil {
				continue
			}
			for _, fd := range fds {
				files = append(files, os.NewFile(uintptr(fd), "passed"))
			}
		}
	}
	if n == 0 {
		CloseFiles(files)
		return Message{}, nil, io.EOF
	}
	var m Message
	if err := json.Unmarshal(buf[:n], &m); err != nil {
		CloseFiles(files)
		return Message{}, nil, fmt.Errorf("bad message: %w", err)
	}
	return m, files, nil
}

// peerPID is the pid of the connection's peer, as this PID namespace
// knows it: 0 for a process outside it.
func (c *Conn) peerPID() (int, error) {
	var cred *unix.Ucred
	var cerr error
	err := c.raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) })
	if err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return int(cred.Pid), nil
}

// Close closes the connection.
func (c *Conn) Close() { _ = c.c.Close() }

// CloseFiles closes files received with a message.
func CloseFiles(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
