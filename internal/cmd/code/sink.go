package code

import (
	"regexp"
	"strings"
	"sync"

	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/output"
)

// codeSink takes run-code's events as they arrive and shows them as the
// output asks: as text on abx's streams, as JSON Lines events (--stream),
// or gathered into one Execution printed at the end (-o json). It is also
// the codeinterp.Spool of the run: the values of results' formats reach it
// while their lines are read, and go straight where they are needed
// (save.go), so that memory stays flat whatever the size of an image.
type codeSink struct {
	opts   *RunCodeOptions
	exec   *codeinterp.Execution // gathered for -o json; nil otherwise
	count  int                   // the execution count, once known
	n      int                   // results seen
	raised bool                  // the code raised an error
	// ended is the server's own error line, when it ended the run (the
	// context was restarted or deleted, or its kernel died).
	ended *codeinterp.ExecError
	// saveErr is the first result that could not be written; the others
	// are still tried, and the run goes on.
	saveErr error
	// pending are the formats of the result being read, by name.
	pending map[string]*pendingFormat
	// spilled are the values the JSON output prints, kept until it does.
	spilled spilledJSON
}

// serverErrors are the names of the error lines the code interpreter
// sends itself, when something other than the code ended the run.
var serverErrors = map[string]bool{
	"UnexpectedEndOfExecution": true, "ContextRestarting": true, "ExecutionAborted": true,
}

func newCodeSink(opts *RunCodeOptions) *codeSink {
	s := &codeSink{opts: opts}
	if opts.Printer.JSON() && !opts.Stream {
		s.exec = codeinterp.NewExecution()
	}
	return s
}

// The JSON Lines events of run-code --stream (docs/json.md, run-code).
type (
	codeLogEvent struct {
		Type string `json:"type"`
		codeinterp.Log
	}
	codeResultEvent struct {
		Type string `json:"type"`
		codeinterp.Result
	}
	codeErrorEvent struct {
		Type string `json:"type"`
		codeinterp.ExecError
	}
	codeCountEvent struct {
		Type           string `json:"type"`
		ExecutionCount int    `json:"executionCount"`
	}
	codeEndEvent struct {
		Type  string `json:"type"`
		Error bool   `json:"error"`
	}
)

func (s *codeSink) add(ev codeinterp.Event) error {
	if ev.ExecutionCount > 0 {
		s.count = ev.ExecutionCount
	}
	if ev.Error != nil {
		if serverErrors[ev.Error.Name] {
			s.ended = ev.Error
		} else {
			s.raised = true
		}
	}
	if ev.Result != nil {
		s.n++
		s.save(ev.Result)
		for _, name := range ev.Result.Spooled {
			if p := s.pending[name]; p != nil && p.spill != nil {
				s.spilled.hold(ev.Result, name, p.spill)
				p.spill = nil
			}
		}
		s.Drop() // what is left belongs to no format of the result
	}
	switch {
	case s.exec != nil:
		return s.exec.Add(ev)
	case s.opts.Stream:
		return s.writeEvent(ev)
	}
	return s.writeText(ev)
}

func (s *codeSink) writeEvent(ev codeinterp.Event) error {
	p := s.opts.Printer
	switch {
	case ev.Stdout != nil:
		return p.Event(codeLogEvent{"stdout", *ev.Stdout})
	case ev.Stderr != nil:
		return p.Event(codeLogEvent{"stderr", *ev.Stderr})
	case ev.Result != nil:
		// Its spills are printed now, and not needed after.
		defer s.spilled.close()
		return s.spilled.print(p.Out(), codeResultEvent{"result", *ev.Result}, output.WriteJSONLine)
	case ev.Error != nil:
		return p.Event(codeErrorEvent{"error", *ev.Error})
	}
	return p.Event(codeCountEvent{"executionCount", ev.ExecutionCount})
}

// writeText copies the code's output to abx's streams: what it printed as
// it printed it, the text of its value on stdout, its error on stderr. It
// is the code's data, not a format of abx's, so it goes to the streams
// themselves.
func (s *codeSink) writeText(ev codeinterp.Event) error {
	streams := s.opts.IO
	var err error
	switch {
	case ev.Stdout != nil:
		_, err = streams.Out.Write([]byte(ev.Stdout.Text))
	case ev.Stderr != nil:
		_, err = streams.ErrOut.Write([]byte(ev.Stderr.Text))
	case ev.Result != nil:
		// A displayed image's text is only its description
		// ("<Figure size 640x480>"): shown when there is nothing else.
		if r := ev.Result; r.Text != "" && (r.IsMainResult || len(r.Formats()) == 0) {
			_, err = streams.Out.Write([]byte(withNewline(r.Text)))
		}
	case ev.Error != nil && s.ended != ev.Error:
		_, err = streams.ErrOut.Write([]byte(errorText(ev.Error, streams.ErrColor)))
	}
	return err
}

// finish prints the gathered Execution of -o json, or the end event of
// --stream.
func (s *codeSink) finish() error {
	switch {
	case s.exec != nil:
		return s.spilled.print(s.opts.Printer.Out(), s.exec, output.WriteJSON)
	case s.opts.Stream:
		return s.opts.Printer.Event(codeEndEvent{"end", s.raised})
	}
	return nil
}

// close removes what the sink still keeps: the spills of -o json, and the
// formats of a result that was being read when the run stopped.
func (s *codeSink) close() {
	s.Drop()
	s.spilled.close()
}

// errorText is how a raised error reads on stderr: IPython's traceback
// (which ends with "Name: value"), colours kept only for a terminal.
func errorText(e *codeinterp.ExecError, color bool) string {
	// The server joins IPython's traceback chunks with nothing, which glues
	// the opening rule and the header to the lines after them; put the line
	// breaks back.
	tb := tracebackRule().ReplaceAllString(e.Traceback, "$1\n$2")
	tb = tracebackHeader().ReplaceAllString(tb, "$1\n$2")
	if !color {
		tb = output.StripANSI(tb)
	}
	last := e.Name + ": " + e.Value
	if !strings.Contains(output.StripANSI(tb), last) {
		tb = strings.TrimRight(tb, "\n")
		if tb != "" {
			tb += "\n"
		}
		tb += last
	}
	return withNewline(tb)
}

// The traceback patterns are compiled when a traceback is shown, not with
// every run of abx.
var (
	tracebackHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(Traceback \(most recent call last\)(?:\x1b\[[0-9;]*m)*)([^\n:])`)
	})
	tracebackRule = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^((?:\x1b\[[0-9;]*m)*-{20,}(?:\x1b\[[0-9;]*m)*)([^\n])`)
	})
)

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
