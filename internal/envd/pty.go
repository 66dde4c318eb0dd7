package envd

import (
	"context"

	"connectrpc.com/connect"

	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// Size is a terminal's size, in character cells.
type Size struct {
	Cols, Rows uint16
}

func (s Size) pty() *pb.PTY {
	return &pb.PTY{Size: &pb.PTY_Size{Cols: uint32(s.Cols), Rows: uint32(s.Rows)}}
}

// Resize sets the size of a process's terminal; the program gets SIGWINCH.
func (c *Client) Resize(ctx context.Context, pid uint32, size Size) error {
	_, err := c.Process.Update(ctx, connect.NewRequest(&pb.UpdateRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}, Pty: size.pty()}))
	return err
}

// SendPTY types data into a process's terminal: keys, as the terminal's
// line discipline reads them (a 0x03 is Ctrl-C, and interrupts the
// program in front).
func (c *Client) SendPTY(ctx context.Context, pid uint32, data []byte) error {
	_, err := c.Process.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}},
		Input:   &pb.ProcessInput{Input: &pb.ProcessInput_Pty{Pty: data}}}))
	return err
}
