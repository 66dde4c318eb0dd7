package codeinterp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"

	"github.com/abx-dev/abx/internal/abxerr"
)

// MaxLine is the longest reply line abx reads. A result carries its images
// base64-encoded on one line, so lines can be large; the values of its
// formats go to the caller's Spool as they are read (to files, for
// run-code), so this bounds what one result can write, not memory.
const MaxLine = 1 << 30

// MaxHeld is the most of a line held in memory: all of it but the values a
// Spool takes. Without one, it is the longest line.
const MaxHeld = 64 << 20

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
	// spooled are the formats whose values went to the Spool.
	spooled []string
}

// unspool forgets a spooled value of format name: another value of it
// came later in the line, and the last one counts.
func (l *line) unspool(name string) {
	l.spooled = slices.DeleteFunc(l.spooled, func(s string) bool { return s == name })
	if len(l.spooled) == 0 {
		l.spooled = nil // as a line that spooled nothing has it
	}
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
	return c.ExecuteSpooled(ctx, req, nil, on)
}

// ExecuteSpooled is Execute with the string values of results' formats
// going to spool while their lines are read (Spool), so that no image is
// ever held whole; a result event then lists them in Result.Spooled. An
// error of spool's writers stops reading and is returned as is.
func (c *Client) ExecuteSpooled(ctx context.Context, req Request, spool Spool, on func(Event) error) error {
	resp, err := c.send(ctx, "POST", "/execute", req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	d := &decoder{r: bufio.NewReaderSize(resp.Body, 64<<10), spool: spool, maxLine: c.maxLine, maxHeld: min(c.maxHeld, c.maxLine)}
	for {
		var l line
		ok, err := d.next(&l)
		if err != nil {
			if d.used {
				spool.Drop()
			}
			return lineError(ctx, err)
		}
		if !ok {
			continue
		}
		if l.Type == "end_of_execution" {
			if d.used {
				spool.Drop()
			}
			return nil
		}
		ev, ok := eventOf(&l)
		if d.used && ev.Result == nil {
			spool.Drop()
		}
		if ok {
			if err := on(ev); err != nil {
				return err
			}
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
		r.Spooled = l.spooled
		return Event{Result: &r}, true
	case "error":
		return Event{Error: &ExecError{Name: l.Name, Value: l.Value, Traceback: l.Traceback}}, true
	case "number_of_executions":
		return Event{ExecutionCount: l.ExecutionCount}, l.ExecutionCount > 0
	}
	return Event{}, false
}

// lineError explains why a line could not be read.
func lineError(ctx context.Context, err error) error {
	var syntax *syntaxError
	var long *tooLongError
	var cut *cutError
	switch {
	case errors.As(err, &syntax):
		return abxerr.New(abxerr.BadResponse, "the code interpreter sent a line abx cannot read: %v", syntax)
	case errors.As(err, &long):
		return abxerr.New(abxerr.BadResponse, "a line of the code interpreter's reply is too long (the limit is %s)", size(long.limit))
	case errors.As(err, &cut):
		return readError(ctx, cut.err)
	}
	return err
}

// readError explains why the reply stopped before its end.
func readError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return abxerr.From(ctx.Err())
	}
	reason := "the connection closed"
	if !errors.Is(err, io.EOF) {
		reason = abxerr.From(err).Message
	}
	return &abxerr.Error{Code: abxerr.Network, Cause: errors.Join(ErrCut, err),
		Message: "the execution's output was cut off before it ended (" + reason + ")",
		Hint:    "the code may still be running; the sandbox may have been paused, killed or restarted"}
}
