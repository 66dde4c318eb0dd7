package envd

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/abx-dev/abx/internal/abxerr"
	pb "github.com/abx-dev/abx/internal/envd/gen/process"
)

// Command is a process to start.
type Command struct {
	Cmd  string
	Args []string
	Env  map[string]string
	Cwd  string // "" is the user's home
	Tag  string
	// Stdin keeps the process's stdin open for SendInput. envd before 0.3.0
	// always opens it; callers then redirect stdin themselves.
	Stdin bool
	// PTY, when set, starts the process on a pseudo-terminal of that size:
	// its output comes as Stdout events (a terminal has one stream: what
	// the program writes to stderr is in it too), and its input goes by
	// SendPTY, never SendStdin (docs/protocol.md, "PTY"). Every envd
	// version abx supports (0.2.10 and later) has PTYs.
	PTY *Size
}

// Event is one thing a process did. Exactly one field is set.
type Event struct {
	Started *uint32 // the pid
	Stdout  []byte
	Stderr  []byte
	End     *End
}

// End is how a process ended.
type End struct {
	ExitCode int    // -1 when a signal ended it
	Exited   bool   // false when a signal ended it
	Status   string // e.g. "exit status 3", "signal: killed"
	Error    string
}

// Start starts cmd and hands each event to on, in order, until the process
// ends. The context's deadline is sent to envd, which kills the process
// when it passes; keep it unset unless the user asked for a time limit.
func (c *Client) Start(ctx context.Context, cmd Command, on func(Event) error) (*End, error) {
	req := &pb.StartRequest{Process: &pb.ProcessConfig{Cmd: cmd.Cmd, Args: cmd.Args, Envs: cmd.Env}}
	if cmd.Cwd != "" {
		req.Process.Cwd = &cmd.Cwd
	}
	if cmd.Tag != "" {
		req.Tag = &cmd.Tag
	}
	if cmd.PTY != nil {
		req.Pty = cmd.PTY.pty()
	} else if c.Version.AtLeast(StdinFlag) {
		req.Stdin = &cmd.Stdin
	}
	r := connect.NewRequest(req)
	c.askKeepalive(r.Header())
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := c.Process.Start(ctx, r)
	if err != nil {
		return nil, err
	}
	defer func() { _ = stream.Close() }()
	conn, err := stream.Conn()
	if err != nil {
		return nil, err
	}
	var msg pb.StartResponse
	return follow(conn, &msg, msg.GetEvent, on, stop)
}

// Connect attaches to a running process by pid and follows it like Start.
// Output written while nobody was attached is lost.
func (c *Client) Connect(ctx context.Context, pid uint32, on func(Event) error) (*End, error) {
	req := &pb.ConnectRequest{Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}}
	r := connect.NewRequest(req)
	c.askKeepalive(r.Header())
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	stream, err := c.Process.Connect(ctx, r)
	if err != nil {
		return nil, err
	}
	defer func() { _ = stream.Close() }()
	conn, err := stream.Conn()
	if err != nil {
		return nil, err
	}
	var msg pb.ConnectResponse
	return follow(conn, &msg, msg.GetEvent, on, stop)
}

// askKeepalive asks envd for a keepalive event every so often while the
// process is quiet, so that a quiet stream is told from a stalled one (the
// idle bound). envd reads the interval, in seconds, from
// Keepalive-Ping-Interval; older versions from X-Keepalive-Interval, and
// some of them send none without it.
func (c *Client) askKeepalive(h http.Header) {
	if c.keepalive <= 0 {
		return
	}
	secs := strconv.Itoa(int(c.keepalive / time.Second))
	h.Set("Keepalive-Ping-Interval", secs)
	h.Set("X-Keepalive-Interval", secs)
}

// ReconnectWindow is how long a follower of a process's stream keeps
// trying to take it up again after a cut (docs/exec.md, "When the stream
// is cut"): the idle bound (--idle-timeout) the client was made for, which
// asks envd for a keepalive three times in it, or a minute when the
// client has no bound.
func (c *Client) ReconnectWindow() time.Duration {
	if c.keepalive <= 0 {
		return time.Minute
	}
	return 3 * c.keepalive
}

// ErrNoEnd is a stream that closed before the process ended.
var ErrNoEnd = errors.New("the stream ended before the process did")

// endDrain bounds the read of a stream's close after its End event.
const endDrain = 200 * time.Millisecond

// follow receives the stream's events into one message, msg, which event
// reads: each is handed to on, which must be done with its bytes when it
// returns, as the next event is decoded into the same ones (outputCodec).
// stop cancels the stream's request.
func follow(conn connect.StreamingClientConn, msg proto.Message, event func() *pb.ProcessEvent, on func(Event) error, stop context.CancelFunc) (*End, error) {
	in := &received{msg: msg}
	for {
		in.decoded = false
		if err := conn.Receive(in); err != nil {
			if errors.Is(err, io.EOF) {
				return nil, ErrNoEnd
			}
			return nil, err
		}
		if !in.decoded {
			continue // an empty message: no event
		}
		ev := event()
		var out Event
		switch e := ev.GetEvent().(type) {
		case *pb.ProcessEvent_Start:
			pid := e.Start.GetPid()
			out.Started = &pid
		case *pb.ProcessEvent_Data:
			out.Stdout, out.Stderr = e.Data.GetStdout(), e.Data.GetStderr()
			if out.Stdout == nil && out.Stderr == nil {
				out.Stdout = e.Data.GetPty()
			}
		case *pb.ProcessEvent_End:
			out.End = &End{ExitCode: int(e.End.GetExitCode()), Exited: e.End.GetExited(),
				Status: e.End.GetStatus(), Error: e.End.GetError()}
		default:
			continue // keepalive, or a kind this client does not know
		}
		if err := on(out); err != nil {
			return nil, err
		}
		if out.End != nil {
			drain(conn, in, stop)
			return out.End, nil
		}
	}
}

// drain reads the stream to its close after the End event: a response body
// closed unread takes its HTTP connection with it, and the next request
// pays a new one (a round trip, a TLS handshake). A server that holds the
// stream open past endDrain has it cancelled, and the connection is lost
// after all.
func drain(conn connect.StreamingClientConn, in *received, stop context.CancelFunc) {
	t := time.AfterFunc(endDrain, stop)
	defer t.Stop()
	for range 8 { // a stray keepalive or two, then the close
		if conn.Receive(in) != nil {
			return
		}
	}
}

// Process is a running process as List shows it.
type Process struct {
	PID  uint32            `json:"pid"`
	Tag  string            `json:"tag,omitempty"`
	Cmd  string            `json:"cmd"`
	Args []string          `json:"args"`
	Cwd  string            `json:"cwd,omitempty"`
	Env  map[string]string `json:"-"` // may hold the user's secrets: never printed
}

// List returns the processes envd runs.
func (c *Client) List(ctx context.Context) ([]Process, error) {
	resp, err := c.Process.List(ctx, connect.NewRequest(&pb.ListRequest{}))
	if err != nil {
		return nil, err
	}
	out := []Process{}
	for _, p := range resp.Msg.GetProcesses() {
		args := p.GetConfig().GetArgs()
		if args == nil {
			args = []string{}
		}
		out = append(out, Process{PID: p.GetPid(), Tag: p.GetTag(), Cmd: p.GetConfig().GetCmd(), Args: args,
			Cwd: p.GetConfig().GetCwd(), Env: p.GetConfig().GetEnvs()})
	}
	return out, nil
}

// Signal sends SIGTERM (15) or SIGKILL (9), the only signals envd accepts.
func (c *Client) Signal(ctx context.Context, pid uint32, kill bool) error {
	sig := pb.Signal_SIGNAL_SIGTERM
	if kill {
		sig = pb.Signal_SIGNAL_SIGKILL
	}
	_, err := c.Process.SendSignal(ctx, connect.NewRequest(&pb.SendSignalRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}, Signal: sig}))
	return err
}

// SendStdin writes data to a process's stdin.
func (c *Client) SendStdin(ctx context.Context, pid uint32, data []byte) error {
	_, err := c.Process.SendInput(ctx, connect.NewRequest(&pb.SendInputRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}},
		Input:   &pb.ProcessInput{Input: &pb.ProcessInput_Stdin{Stdin: data}}}))
	return err
}

// CanCloseStdin reports whether this sandbox's envd can close a process's
// stdin (0.5.2 and later).
func (c *Client) CanCloseStdin() bool { return c.Version.AtLeast(CloseStdin) }

// CheckCloseStdin is nil when this sandbox's envd can close a process's
// stdin and otherwise the abxerr.Unsupported error that says so: for a
// caller that must refuse before it starts (sending data it then cannot
// end).
func (c *Client) CheckCloseStdin() error {
	if c.CanCloseStdin() {
		return nil
	}
	return abxerr.New(abxerr.Unsupported, "this sandbox's envd %s cannot close stdin (it needs %s or newer)", c.Version, CloseStdin).
		WithHint("send the data without --close, or end the input in a way the program understands")
}

// CloseStdin closes a process's stdin (envd 0.5.2 and later). On an older
// envd it sends nothing and returns CheckCloseStdin's error.
func (c *Client) CloseStdin(ctx context.Context, pid uint32) error {
	if err := c.CheckCloseStdin(); err != nil {
		return err
	}
	_, err := c.Process.CloseStdin(ctx, connect.NewRequest(&pb.CloseStdinRequest{
		Process: &pb.ProcessSelector{Selector: &pb.ProcessSelector_Pid{Pid: pid}}}))
	return err
}
