package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// Bounds of the stdio transport (docs/mcp.md, "On stdio").

// DefaultMaxLine caps one message: as the SDK's own transport does, so
// that a files_write of some 12 MiB (in base64) still fits.
const DefaultMaxLine = mcp.DefaultMaxLineLength

// DefaultDrain bounds the wait for the calls under way once the input has
// ended: the longest a call may run (exec's and run_code's timeout_seconds
// at most, as the catalogue bounds them), and a minute for a killed
// command to end and its answer to be written. Each call ends by its own
// limit well before, as a rule.
var DefaultDrain = longestCall("process.exec", "code.run") + time.Minute

// longestCall is the longest time limit the operations named take.
func longestCall(ops ...string) time.Duration {
	var most int64
	for _, op := range ops {
		most = max(most, sandboxes.Op(op).Input("timeout").Max)
	}
	return time.Duration(most) * time.Second
}

// Stdio is the transport of `abx mcp serve` on stdin and stdout: one
// JSON-RPC message a line. Unlike the SDK's own, a line it cannot take
// (not JSON, not a JSON-RPC message, a batch, longer than MaxLine) is
// answered with a JSON-RPC error and the session goes on; and the end of
// the input ends the session only once the calls read before it have been
// answered, so that `abx mcp serve < requests` answers every request.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	// MaxLine caps a line, its newline not counted; 0 is DefaultMaxLine.
	// Past it the line is read on and dropped, in bounded memory.
	MaxLine int
	// Drain bounds the wait for the calls under way at the end of the
	// input; 0 is DefaultDrain. Past it they are stopped.
	Drain time.Duration

	// sawEnd, when set, is told that the reader has seen the input end:
	// for tests that must act after that, not before.
	sawEnd func()
}

// DrainError ends a session whose input ended while calls were under way
// that had not finished when the drain bound passed: they were stopped.
type DrainError struct {
	Pending int
	After   time.Duration
}

func (e *DrainError) Error() string {
	return fmt.Sprintf("the input ended, and %s had not finished %s later: they were stopped", human.Count(e.Pending, "call", "calls"), e.After)
}

// Connect starts reading the input. ctx is the server's: when it ends
// (Ctrl-C), so does the session, and the calls under way are cancelled.
func (t *Stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &stdioConn{
		ctx:      ctx,
		out:      t.Out,
		maxLine:  t.MaxLine,
		drain:    t.Drain,
		sawEnd:   t.sawEnd,
		messages: make(chan jsonrpc.Message),
		ended:    make(chan struct{}),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
	}
	if c.maxLine <= 0 {
		c.maxLine = DefaultMaxLine
	}
	if c.drain <= 0 {
		c.drain = DefaultDrain
	}
	go c.readLines(t.In)
	return c, nil
}

// stdioConn is one session on stdio.
type stdioConn struct {
	ctx     context.Context
	out     io.Writer
	maxLine int
	drain   time.Duration
	sawEnd  func()

	writeMu sync.Mutex

	// messages carries what the reader read, one message at a time.
	messages chan jsonrpc.Message
	// ended is closed when the input has ended (endErr says why, nil at
	// its end), after the last message was taken.
	ended  chan struct{}
	endErr error

	closeOnce sync.Once
	closed    chan struct{}

	mu sync.Mutex
	// initialized is set once an initialize request was read.
	initialized bool
	// pending are the calls read and not yet answered.
	pending map[jsonrpc.ID]bool
	// idle, once the input has ended, is closed when pending empties.
	idle chan struct{}
}

// Read hands the SDK the next message. At the end of the input it waits
// for the calls under way to be answered before it says so: the SDK
// cancels every call still running when the input ends, and writes no
// answer after it.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.messages:
		return m, nil
	case <-c.ended:
		return nil, c.drained(ctx)
	case <-c.closed:
		return nil, io.EOF
	case <-c.ctx.Done():
		return nil, c.ctx.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// drained waits until no call is pending, at most c.drain, and returns
// why the input ended.
func (c *stdioConn) drained(ctx context.Context) error {
	end := c.endErr
	if end == nil {
		end = io.EOF
	}
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return end
	}
	if c.idle == nil {
		c.idle = make(chan struct{})
	}
	idle := c.idle
	c.mu.Unlock()
	timer := time.NewTimer(c.drain)
	defer timer.Stop()
	select {
	case <-idle:
		return end
	case <-timer.C:
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		return &DrainError{Pending: n, After: c.drain}
	case <-c.closed:
		return end
	case <-c.ctx.Done():
		return c.ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Write writes one message on its line; an answer settles its call.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok {
		defer c.answered(r.ID)
		msg = c.coded(r)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	return c.writeLine(data)
}

// coded gives an error answer the SDK made without a code one that
// JSON-RPC has (0 is none): a call before initialize is an invalid request
// in that state, -32600, which says to initialize first; any other is the
// server's internal error, -32603.
func (c *stdioConn) coded(r *jsonrpc.Response) jsonrpc.Message {
	var we *jsonrpc.Error
	if r.Error == nil || errors.As(r.Error, &we) && we.Code != 0 {
		return r
	}
	c.mu.Lock()
	initialized := c.initialized
	c.mu.Unlock()
	out := *r
	if !initialized {
		out.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: r.Error.Error() + ": send initialize first"}
	} else {
		out.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: r.Error.Error()}
	}
	return &out
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

func (c *stdioConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
	if len(c.pending) == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// Close stops the session; the process's own stdin and stdout stay open.
// A read of stdin under way cannot be stopped: its goroutine ends with
// the process.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: stdio has one session.
func (*stdioConn) SessionID() string { return "" }

// readLines reads the input line by line until it ends or the session
// closes, answering the lines it cannot take.
func (c *stdioConn) readLines(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for {
		line, long, err := readLine(r, c.maxLine, buf[:0])
		if err != nil && !errors.Is(err, io.EOF) {
			err = fmt.Errorf("reading stdin: %w", err)
		}
		if terr := c.take(line, long); terr != nil {
			err = terr
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.endErr = err
			}
			if c.sawEnd != nil {
				c.sawEnd()
			}
			close(c.ended)
			return
		}
		// A buffer grown for one long message is not kept for the next.
		if buf = line; cap(buf) > 1<<20 {
			buf = nil
		}
	}
}

// readLine reads one line into buf, without its line ending. A line
// longer than maxLine is read to its end and dropped (long is true).
func readLine(r *bufio.Reader, maxLine int, buf []byte) (line []byte, long bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !long {
			if len(buf)+len(frag) > maxLine+2 { // room for "\r\n"
				long, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > maxLine {
			long, buf = true, buf[:0]
		}
		return buf, long, err
	}
}

// take hands a line's message to Read, or answers why it cannot be
// taken. Its error ends the input: the session closed, or stdout failed.
func (c *stdioConn) take(line []byte, long bool) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 && !long {
		return nil // a blank line is no message
	}
	msg, id, code, why := c.parse(line, long)
	if msg == nil {
		return c.refuse(id, code, why)
	}
	select {
	case c.messages <- msg:
		return nil
	case <-c.closed:
		return io.EOF
	}
}

// parse decodes a line's message, or says which error answers it and to
// which id.
func (c *stdioConn) parse(line []byte, long bool) (msg jsonrpc.Message, id json.RawMessage, code int, why string) {
	null := json.RawMessage("null")
	switch {
	case long:
		return nil, null, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the message is longer than %d bytes", c.maxLine)
	case !json.Valid(line):
		var v json.RawMessage
		return nil, null, jsonrpc.CodeParseError, "Parse error: " + json.Unmarshal(line, &v).Error()
	case line[0] == '[':
		return nil, null, jsonrpc.CodeInvalidRequest, "Invalid Request: a batch (a JSON array) is not taken: send one message a line"
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, idOf(line), jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
	}
	if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.initialized = c.initialized || req.Method == "initialize"
		inUse := c.pending[req.ID]
		if !inUse {
			c.pending[req.ID] = true
		}
		c.mu.Unlock()
		if inUse {
			// Not its id: the answer would read as the first call's.
			return nil, null, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: request id %v is in use by a call under way", req.ID.Raw())
		}
	}
	return m, nil, 0, ""
}

// idOf is the id of a message that is no valid request, when it has one
// JSON-RPC allows (a string or a number); else null.
func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 && (m.ID[0] == '"' || m.ID[0] == '-' || m.ID[0] >= '0' && m.ID[0] <= '9') {
		return m.ID
	}
	return json.RawMessage("null")
}

// refuse answers a line the session cannot take.
func (c *stdioConn) refuse(id json.RawMessage, code int, why string) error {
	select {
	case <-c.closed:
		return io.EOF
	default:
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, why}})
	if err != nil {
		return err
	}
	if err := c.writeLine(data); err != nil {
		return fmt.Errorf("writing stdout: %w", err)
	}
	return nil
}
