package codeinterp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/abx-dev/abx/internal/abxerr"
)

// MaxLine is the longest reply line abx reads. A line carries one output
// event, and a result carries its images base64-encoded, so lines can be
// large; past this the reply is refused rather than held in memory.
const MaxLine = 64 << 20

// Request is one POST /execute. ContextID and Language exclude each other:
// the server refuses both.
type Request struct {
	Code      string            `json:"code"`
	ContextID string            `json:"context_id,omitempty"`
	Language  string            `json:"language,omitempty"`
	EnvVars   map[string]string `json:"env_vars,omitempty"`
}

// Event is one line of the reply that matters; exactly one field is set.
type Event struct {
	Stdout         *Log
	Stderr         *Log
	Result         *Result
	Error          *ExecError
	ExecutionCount int
}

// Log is a chunk of output the code printed, as it arrived.
type Log struct {
	Text      string `json:"text"`
	Timestamp string `json:"timestamp,omitempty"`
}

// ExecError is the error the code raised.
type ExecError struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Traceback string `json:"traceback"`
}

// line is every field a reply line can have.
type line struct {
	Type           string `json:"type"`
	Text           string `json:"text"`
	Timestamp      string `json:"timestamp"`
	Name           string `json:"name"`
	Value          string `json:"value"`
	Traceback      string `json:"traceback"`
	ExecutionCount int    `json:"execution_count"`
	wireResult
}

// ErrCut reports a reply that ended without end_of_execution.
var ErrCut = errors.New("the reply ended before end_of_execution")

// Execute runs code and hands each event to on as its line arrives.
// keepalive lines and types abx does not know are skipped. It returns
// when end_of_execution arrives; a reply that ends before it is a cut
// stream, reported as an error wrapping ErrCut. An error from on stops
// reading and is returned as is. Cancelling ctx closes the request; not
// every release of the server interrupts the code then, so callers must not
// count on it (docs/protocol.md, "Where the servers' sources disagree").
func (c *Client) Execute(ctx context.Context, req Request, on func(Event) error) error {
	resp, err := c.send(ctx, "POST", "/execute", req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	r := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		raw, err := readLine(r, c.maxLine)
		if len(bytes.TrimSpace(raw)) > 0 {
			var l line
			if jerr := json.Unmarshal(raw, &l); jerr != nil {
				if err != nil {
					return readError(ctx, err) // cut in the middle of a line
				}
				return abxerr.New(abxerr.BadResponse, "the code interpreter sent a line abx cannot read: %v", jerr)
			}
			if l.Type == "end_of_execution" {
				return nil
			}
			if ev, ok := eventOf(&l); ok {
				if err := on(ev); err != nil {
					return err
				}
			}
		}
		if err != nil {
			return readError(ctx, err)
		}
	}
}

func eventOf(l *line) (Event, bool) {
	switch l.Type {
	case "stdout":
		return Event{Stdout: &Log{Text: l.Text, Timestamp: l.Timestamp}}, true
	case "stderr":
		return Event{Stderr: &Log{Text: l.Text, Timestamp: l.Timestamp}}, true
	case "result":
		r := l.result(l.Text)
		return Event{Result: &r}, true
	case "error":
		return Event{Error: &ExecError{Name: l.Name, Value: l.Value, Traceback: l.Traceback}}, true
	case "number_of_executions":
		return Event{ExecutionCount: l.ExecutionCount}, l.ExecutionCount > 0
	}
	return Event{}, false
}

// readLine reads one line of at most maxLine bytes, without its newline.
func readLine(r *bufio.Reader, maxLine int) ([]byte, error) {
	var long []byte
	for {
		frag, err := r.ReadSlice('\n')
		if err == nil {
			// The last fragment counts too: the buffer may be larger
			// than the limit.
			if len(long)+len(frag)-1 > maxLine {
				return nil, errLineTooLong
			}
			if long == nil {
				return frag[:len(frag)-1], nil
			}
			return append(long, frag[:len(frag)-1]...), nil
		}
		if len(long)+len(frag) > maxLine {
			return nil, errLineTooLong
		}
		long = append(long, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return long, err
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readError explains why the reply stopped before its end.
func readError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return abxerr.From(ctx.Err())
	}
	if errors.Is(err, errLineTooLong) {
		return abxerr.New(abxerr.BadResponse, "a line of the code interpreter's reply is too long (the limit is %d MiB)", MaxLine>>20)
	}
	reason := "the connection closed"
	if !errors.Is(err, io.EOF) {
		reason = abxerr.From(err).Message
	}
	return &abxerr.Error{Code: abxerr.Network, Cause: errors.Join(ErrCut, err),
		Message: "the execution's output was cut off before it ended (" + reason + ")",
		Hint:    "the code may still be running; the sandbox may have been paused, killed or restarted"}
}
