//go:build unix

package envd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"connectrpc.com/connect"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// A process started with StartRequest.pty runs on a terminal, as envd
// starts it (docs/protocol.md, "PTY"): the leader of a session whose
// controlling terminal is the pty's slave end, which is its stdin, stdout
// and stderr; envd holds the master. What the process writes comes as
// DataEvent.pty, in reads of 16 KiB at most; input (ProcessInput.pty) is
// written to the master, Update resizes it.

// ptyChunk is the most one pty DataEvent carries: envd reads the master
// 16 KiB at a time.
const ptyChunk = 16 << 10

// ptyDrain bounds the wait for the terminal's output once its process has
// ended: the master reads until no process holds the slave any more,
// which a background job left running would put off for ever.
const ptyDrain = 2 * time.Second

// ptyWriteSlice is how long one write to the master waits for room before
// the writer looks whether its caller is still there.
const ptyWriteSlice = 250 * time.Millisecond

// openPTY opens a terminal for a process: in the sandbox's box, one of its
// own pty instance (so that the process's /dev/pts names it); without one,
// or where the box has no ptys, one of this machine's. master is
// non-blocking, so that writes take deadlines and a read ends when it is
// closed.
func (s *Server) openPTY() (master, slave *os.File, err error) {
	if s.opts.Isolated {
		b, err := s.box()
		if err != nil {
			return nil, nil, err
		}
		if master, slave, err := b.OpenPTY(); err == nil {
			return master, slave, nil
		}
	}
	m, slave, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	// pty.Open leaves the master blocking (it took its Fd): a copy made
	// non-blocking is pollable again.
	fd, err := unix.Dup(int(m.Fd()))
	_ = m.Close()
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		_ = slave.Close()
		return nil, nil, err
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "/dev/ptmx"), slave, nil
}

// setSize gives the terminal of master its size; its foreground process
// group gets SIGWINCH when the size changes.
func setSize(master *os.File, size *pb.PTY_Size) error {
	raw, err := master.SyscallConn()
	if err != nil {
		return err
	}
	ws := &unix.Winsize{Row: uint16(size.GetRows()), Col: uint16(size.GetCols())}
	cerr := raw.Control(func(fd uintptr) { err = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, ws) })
	if cerr != nil {
		return cerr
	}
	return err
}

// The errors envd 0.2.10 words for input and resizes that do not fit the
// process.
var (
	errTTYAssigned    = errors.New("tty assigned to process — input should be written to the pty, not the stdin")
	errTTYNotAssigned = errors.New("tty not assigned to process — input should be written to the stdin, not the tty")
	errNoTTY          = errors.New("tty not assigned to process")
)

// writeTTY writes input to the terminal, whole and in order (writers take
// turns), as long as ctx lasts: a process that reads no input fills the
// terminal's queue, and the write waits for it as envd's does, but no
// longer than its caller.
func (p *proc) writeTTY(ctx context.Context, b []byte) error {
	select {
	case p.ttyTurn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.ttyTurn }()
	for len(b) > 0 {
		_ = p.tty.SetWriteDeadline(time.Now().Add(ptyWriteSlice))
		n, err := p.tty.Write(b)
		b = b[n:]
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			if ctx.Err() != nil {
				return ctx.Err()
			}
		case err != nil:
			return err
		}
	}
	return nil
}

// resize sets the terminal's size; a plain process has none to set.
func (p *proc) resize(size *pb.PTY_Size) error {
	if p.tty == nil {
		return errNoTTY
	}
	return setSize(p.tty, size)
}

func (h *processService) Update(_ context.Context, req *connect.Request[pb.UpdateRequest]) (*connect.Response[pb.UpdateResponse], error) {
	p, err := h.s.procs.get(req.Msg.GetProcess())
	if err != nil {
		return nil, err
	}
	if req.Msg.Pty != nil {
		if err := p.resize(req.Msg.GetPty().GetSize()); err != nil {
			return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("error resizing tty: %w", err))
		}
	}
	return connect.NewResponse(&pb.UpdateResponse{}), nil
}
