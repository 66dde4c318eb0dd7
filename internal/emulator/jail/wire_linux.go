//go:build linux

package jail

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

// The box's init listens on a Unix socket of the SOCK_SEQPACKET kind: one
// message is one JSON object, sent and read whole, and may carry
// descriptors. Two kinds of conversation:
//
//   - control, the emulator's with the init: "pidof" asks for the pid in
//     the box of a command, by its relay's pid on this machine; "stop" and
//     "cont" pause and resume everything in the box where no cgroup can;
//   - a command's socket, its relay's with the init: the relay sends the
//     command ("spec") with its standard streams and extra descriptors,
//     then signals; the init answers with the command's pid in the box,
//     then how it ended.
type message struct {
	Op     string `json:"op"`
	Spec   *Spec  `json:"spec,omitempty"`
	Signal int    `json:"signal,omitempty"`
	PID    int    `json:"pid,omitempty"`
	// Status is the command's wait status, as the kernel gives it.
	Status *int `json:"status,omitempty"`
	// Error says why the command could not run; Code is its status, as a
	// shell's (126, 127).
	Error string `json:"error,omitempty"`
	Code  int    `json:"code,omitempty"`
}

// Operations.
const (
	opPIDOf  = "pidof"  // control: the pid in the box of the command of relay PID
	opStop   = "stop"   // control: SIGSTOP every process of the box
	opCont   = "cont"   // control: SIGCONT them
	opDone   = "done"   // the init's answer to stop and cont
	opSpec   = "spec"   // relay: the command, its descriptors attached
	opSignal = "signal" // relay: a signal for the command
	opPID    = "pid"    // init: the command started, its pid in the box
	opExit   = "exit"   // init: how it ended (Status), or why it never ran (Error)
)

// maxMessage bounds one message: a spec holds a command line and its
// environment.
const maxMessage = 1 << 20

// conn is one end of a connection to the init's socket.
type conn struct{ c *net.UnixConn }

func (c *conn) send(m message, files ...*os.File) error {
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
	_, _, err = c.c.WriteMsgUnix(b, oob, nil)
	return err
}

// recv reads one message and the descriptors it carries, which the
// caller owns.
func (c *conn) recv() (message, []*os.File, error) {
	buf := make([]byte, maxMessage)
	oob := make([]byte, syscall.CmsgSpace(4*64))
	n, oobn, _, _, err := c.c.ReadMsgUnix(buf, oob)
	if err != nil {
		return message{}, nil, err
	}
	var files []*os.File
	if oobn > 0 {
		cmsgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return message{}, nil, err
		}
		for _, cm := range cmsgs {
			fds, err := syscall.ParseUnixRights(&cm)
			if err != nil {
				continue
			}
			for _, fd := range fds {
				syscall.CloseOnExec(fd)
				files = append(files, os.NewFile(uintptr(fd), "passed"))
			}
		}
	}
	if n == 0 {
		closeAll(files)
		return message{}, nil, io.EOF
	}
	var m message
	if err := json.Unmarshal(buf[:n], &m); err != nil {
		closeAll(files)
		return message{}, nil, fmt.Errorf("bad message: %w", err)
	}
	return m, files, nil
}

func (c *conn) close() { _ = c.c.Close() }

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
