package mcpserver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/remoteproc"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// ExecArgs are exec's arguments.
type ExecArgs struct {
	SandboxID      string            `json:"sandbox_id" jsonschema:"the sandbox's ID"`
	Command        string            `json:"command" jsonschema:"a shell line, run by bash -l -c (pipes, globs, && and $VARS work); stdin is /dev/null"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"working directory (default: the user's home)"`
	Envs           map[string]string `json:"envs,omitempty" jsonschema:"environment variables for the command"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" jsonschema:"kill the command after this many seconds (default 600)"`
	Background     bool              `json:"background,omitempty" jsonschema:"start the command and return its pid at once; its output is discarded"`
}

// ExecResult is exec's structured result.
type ExecResult struct {
	ExitCode  int    `json:"exitCode" jsonschema:"the command's exit status, 128+n when signal n ended it (0 for a background start)"`
	Stdout    string `json:"stdout" jsonschema:"what the command wrote to stdout, up to the cap"`
	Stderr    string `json:"stderr" jsonschema:"what the command wrote to stderr, up to the cap"`
	Truncated bool   `json:"truncated" jsonschema:"true when stdout or stderr passed the cap and was cut"`
	PID       uint32 `json:"pid,omitempty" jsonschema:"the process's pid in the sandbox"`
	Status    string `json:"status,omitempty" jsonschema:"how the command ended, in envd's words, or 'running' for a background start"`
}

func (s *server) addExecTool(srv *mcp.Server) {
	add(s, srv, "process.exec", &mcp.Tool{
		Name: "exec",
		Description: "Run a shell line in a sandbox and wait for its end: exit code, stdout and stderr (each capped; " +
			"truncated says so). A non-zero exit is a normal result. The command is killed when timeout_seconds " +
			"(default 600) pass, or when the call is cancelled. background starts it and returns its pid.",
		Annotations: &mcp.ToolAnnotations{Title: "Run a command in a sandbox", DestructiveHint: ptr(true)},
	}, s.exec)
}

func (s *server) exec(ctx context.Context, req *mcp.CallToolRequest, in ExecArgs) (*mcp.CallToolResult, *ExecResult, error) {
	id, err := s.sandboxID(in.SandboxID)
	if err != nil {
		return nil, nil, s.fail(err)
	}
	// Signals is a channel of no signal: the host's cancellation, through
	// ctx, is the only interrupt; the server's own SIGINT stays the root's.
	cmd := sandboxes.Command{Argv: []string{in.Command}, Cwd: in.Cwd, Env: in.Envs, Signals: make(chan os.Signal),
		Timeout: time.Duration(in.TimeoutSeconds) * time.Second, Background: in.Background}
	if in.Background {
		x, err := s.opts.Sandboxes.Exec(ctx, id, cmd, nil)
		if err != nil {
			return nil, nil, s.failIn(id, err)
		}
		return text("started in the background, pid %d", x.PID), &ExecResult{PID: x.PID, Status: "running"}, nil
	}
	if cmd.Timeout == 0 {
		cmd.Timeout = s.opts.ExecTimeout
	}
	out := &capture{max: s.opts.MaxOutput}
	stop := heartbeat(ctx, req, s.opts.ProgressEvery, cmd.Timeout, out.status)
	x, err := s.opts.Sandboxes.Exec(ctx, id, cmd, out)
	stop()
	if err != nil {
		return nil, nil, s.failIn(id, out.annotate(err))
	}
	res := &ExecResult{ExitCode: x.Exit.Code, Status: x.Exit.Status, PID: out.pid}
	res.Stdout, res.Stderr, res.Truncated = out.result()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: execText(res, s.opts.MaxOutput)}}}, res, nil
}

// execText is the result for hosts that show text only.
func execText(r *ExecResult, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit code %d", r.ExitCode)
	if r.Truncated {
		fmt.Fprintf(&b, " (output truncated at %d bytes per stream)", limit)
	}
	if r.Stdout != "" {
		b.WriteString("\nstdout:\n" + r.Stdout)
	}
	if r.Stderr != "" {
		b.WriteString("\nstderr:\n" + r.Stderr)
	}
	return b.String()
}

// capture keeps the first max bytes of each stream of a process
// (remoteproc.Sink); what passes the cap is counted, not kept.
type capture struct {
	max int

	mu          sync.Mutex
	pid         uint32
	out, errb   []byte
	truncated   bool
	reconnected bool
	// seen counts every byte that came, kept or not, for progress.
	seen int
}

func (c *capture) Started(pid uint32) error {
	c.mu.Lock()
	c.pid = pid
	c.mu.Unlock()
	return nil
}

func (c *capture) Stdout(data []byte) error { c.add(&c.out, data); return nil }

func (c *capture) Stderr(data []byte) error { c.add(&c.errb, data); return nil }

// Reconnected notes that the stream was cut and taken up again: output of
// the gap may be missing.
func (c *capture) Reconnected(remoteproc.Reconnect) error {
	c.mu.Lock()
	c.reconnected = true
	c.mu.Unlock()
	return nil
}

func (c *capture) add(to *[]byte, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen += len(data)
	room := c.max - len(*to)
	if len(data) > room {
		c.truncated = true
		data = data[:max(room, 0)]
	}
	*to = append(*to, data...)
}

// status says how much output came so far, for progress notifications.
func (c *capture) status() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return human.Count(c.seen, "byte", "bytes") + " of output"
}

// result is the streams as text: a cut that split a character drops its
// first bytes.
func (c *capture) result() (stdout, stderr string, truncated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return textOf(c.out, c.truncated), textOf(c.errb, c.truncated), c.truncated || c.reconnected
}

func textOf(b []byte, cut bool) string {
	if cut {
		for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
			if r, n := utf8.DecodeLastRune(b); r != utf8.RuneError || n != 1 {
				break
			}
			b = b[:len(b)-1]
		}
	}
	return string(b)
}

// annotate adds to an error of Run (a timeout, an interrupt) the start of
// what the command printed, so that the agent sees how far it got.
func (c *capture) annotate(err error) error {
	e := abxerr.From(err)
	stdout, stderr, _ := c.result()
	const tail = 2 << 10
	clip := func(s string) string {
		if len(s) > tail {
			return "…" + s[len(s)-tail:]
		}
		return s
	}
	if stdout == "" && stderr == "" {
		return e
	}
	msg := abxerr.CutWords(e.Message)
	if stdout != "" {
		msg += "\nstdout (its end):\n" + clip(stdout)
	}
	if stderr != "" {
		msg += "\nstderr (its end):\n" + clip(stderr)
	}
	return &withOutput{&abxerr.Error{Code: e.Code, Message: msg, Hint: e.Hint, RequestID: e.RequestID, Status: e.Status, Cause: e.Cause}}
}

// withOutput is an error whose message ends with what the command
// printed: its words are the command's, which fail leaves whole (the
// error's own part was cut by annotate).
type withOutput struct{ e *abxerr.Error }

func (w *withOutput) Error() string { return w.e.Error() }
func (w *withOutput) Unwrap() error { return w.e }
