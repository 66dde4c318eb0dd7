package code

import (
	"regexp"
	"strings"
	"sync"

	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/sandboxes"
)

// codeSink takes run-code's events as they arrive and hands them to the
// printer's stream, which shows them as the output asks: as text on abx's
// streams, as JSON Lines events (--stream), or gathered into one Execution
// printed at the end (-o json). It is also the codeinterp.Spool of the
// run: the values of results' formats reach it while their lines are
// read, and go straight where they are needed (save.go), so that memory
// stays flat whatever the size of an image.
type codeSink struct {
	opts   *RunCodeOptions
	st     *output.Stream
	count  int  // the execution count, once known
	n      int  // results seen
	raised bool // the code raised an error
	// saveErr is the first result that could not be written; the others
	// are still tried, and the run goes on.
	saveErr error
	// saved counts the files written to --save-dir.
	saved int
	// pending are the formats of the result being read, by name.
	pending map[string]*pendingFormat
}

func newCodeSink(opts *RunCodeOptions) *codeSink {
	return &codeSink{opts: opts, st: opts.Printer.Stream(output.StreamSpec{
		Gather:  func() output.Gatherer { return execution{codeinterp.NewExecution()} },
		TempDir: opts.tempDir,
	})}
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
	if ev.Error != nil && !sandboxes.ServerEnded(ev.Error) {
		s.raised = true
	}
	if ev.Result != nil {
		s.n++
		s.save(ev.Result)
		for _, name := range ev.Result.Spooled {
			if p := s.pending[name]; p != nil && p.held != nil {
				ev.Result.SetFormat(name, s.st.Value(p.held))
				p.held = nil
			}
		}
		s.Drop() // what is left belongs to no format of the result
	}
	return s.show(ev)
}

// show hands the event to the stream, with what people read of it: what
// the code printed, as it printed it; the text of its value on stdout; its
// error on stderr. That is the code's data, not a format of abx's.
func (s *codeSink) show(ev codeinterp.Event) error {
	switch {
	case ev.Stdout != nil:
		return s.st.Output(codeLogEvent{"stdout", *ev.Stdout}, []byte(ev.Stdout.Text))
	case ev.Stderr != nil:
		return s.st.ErrOutput(codeLogEvent{"stderr", *ev.Stderr}, []byte(ev.Stderr.Text))
	case ev.Result != nil:
		// A displayed image's text is only its description
		// ("<Figure size 640x480>"): shown when there is nothing else.
		var text []byte
		if r := ev.Result; r.Text != "" && (r.IsMainResult || len(r.Formats()) == 0) {
			text = []byte(withNewline(r.Text))
		}
		return s.st.Output(codeResultEvent{"result", *ev.Result}, text)
	case sandboxes.ServerEnded(ev.Error):
		return s.st.Event(codeErrorEvent{"error", *ev.Error}) // the error abx reports says it
	case ev.Error != nil:
		return s.st.ErrOutput(codeErrorEvent{"error", *ev.Error}, []byte(errorText(ev.Error, s.opts.IO.ErrColor)))
	}
	return s.st.Event(codeCountEvent{"executionCount", ev.ExecutionCount})
}

// finish ends the stream: the end event of --stream, or the Execution of
// -o json.
func (s *codeSink) finish() error {
	if err := s.st.Event(codeEndEvent{"end", s.raised}); err != nil {
		return err
	}
	return s.st.Close()
}

// close removes what the sink still keeps: the values held for the JSON
// output, and the formats of a result that was being read when the run
// stopped.
func (s *codeSink) close() {
	s.Drop()
	s.st.Discard()
}

// execution gathers run-code's events into the Execution -o json prints.
type execution struct{ x *codeinterp.Execution }

func (g execution) Add(ev any) error {
	switch e := ev.(type) {
	case codeLogEvent:
		if e.Type == "stdout" {
			return g.x.Add(codeinterp.Event{Stdout: &e.Log})
		}
		return g.x.Add(codeinterp.Event{Stderr: &e.Log})
	case codeResultEvent:
		return g.x.Add(codeinterp.Event{Result: &e.Result})
	case codeErrorEvent:
		return g.x.Add(codeinterp.Event{Error: &e.ExecError})
	case codeCountEvent:
		return g.x.Add(codeinterp.Event{ExecutionCount: e.ExecutionCount})
	}
	return nil // the end of --stream: the Execution says it otherwise
}

func (g execution) Result() any { return g.x }

// errorText is how a raised error reads on stderr: IPython's traceback
// (which ends with "Name: value"), colours kept only for a terminal.
func errorText(e *codeinterp.ExecError, color bool) string {
	// The server joins a kernel's traceback chunks with nothing, which glues
	// IPython's opening rule and header to the lines after them, and a
	// JavaScript stack's lines to each other; put the line breaks back.
	tb := tracebackRule().ReplaceAllString(e.Traceback, "$1\n$2")
	tb = tracebackHeader().ReplaceAllString(tb, "$1\n$2")
	tb = stackFrame().ReplaceAllString(tb, "$1\n$2")
	if !color {
		tb = human.StripANSI(tb)
	}
	last := e.Name + ": " + e.Value
	if e.Name == "" {
		// The Bash kernel names no error: its value is the cell's status.
		last = "exit status " + e.Value
	}
	if !strings.Contains(human.StripANSI(tb), last) {
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
	// stackFrame is where a JavaScript stack's next frame begins.
	stackFrame = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([^\n])(    at )`)
	})
)

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
