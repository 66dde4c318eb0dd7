package output

import (
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
)

// Stream prints the events of something that goes on (a process's output,
// run-code's events, a watched directory) one at a time, as they come. For
// programs each event is one JSON line; for people it is what the event
// says to them: output copied as it came, a table row, a note on stderr,
// or nothing. Each event is written whole before the next, so that a
// reader sees it at once.
//
// A verb whose JSON is one object in the end rather than lines (run-code
// without --stream) gives a Gather: in that form the stream hands it the
// events instead of printing them, and prints what it gathered at Close.
type Stream struct {
	p      *Printer
	form   Format
	gather Gatherer // when the JSON is one object
	rows   *rowWriter
	held   heldValues
}

// StreamSpec says what a stream's events are.
type StreamSpec struct {
	// Header names the columns of Row events, for people.
	Header []string
	// Gather makes the one object the verb's JSON is when its JSON is not
	// JSON Lines; called at most once, and only then. nil: the verb's
	// JSON is always JSON Lines (exec, ps attach).
	Gather func() Gatherer
	// TempDir is where long held values are kept; "" for the system's.
	TempDir string
}

// Gatherer gathers a stream's events into the one object printed at the
// end.
type Gatherer interface {
	Add(event any) error
	Result() any
}

// Stream starts a stream of events.
func (p *Printer) Stream(spec StreamSpec) *Stream {
	s := &Stream{p: p, form: p.form(), held: heldValues{dir: spec.TempDir}}
	if s.form == JSON && spec.Gather != nil && !p.lines {
		s.gather = spec.Gather()
	}
	if s.form != JSON {
		s.rows = &rowWriter{s: p.io, header: spec.Header, names: s.form == Name}
	}
	return s
}

// programs is true when the events print as JSON (lines or gathered).
func (s *Stream) programs() bool { return s.form == JSON }

// event prints ev as one JSON line, or gives it to the gatherer.
func (s *Stream) event(ev any, redact bool) error {
	if s.gather != nil {
		return s.gather.Add(ev)
	}
	defer s.held.close() // the values it carries are printed now
	if redact {
		return closed(s.held.print(s.p.out, ev, func(w io.Writer, v any) error {
			return s.p.writeRedacted(w, v, WriteJSONLine)
		}))
	}
	return closed(s.held.print(s.p.out, ev, WriteJSONLine))
}

// Output is output of what runs (a process's stdout, what code printed, a
// value it made): copied to stdout as it came for people, ev for
// programs. Neither is redacted: it is the program's data.
func (s *Stream) Output(ev any, b []byte) error {
	if s.programs() {
		return s.event(ev, false)
	}
	_, err := s.p.io.Out.Write(b)
	return closed(err)
}

// ErrOutput is what runs writes to its stderr, or an error it raised:
// copied to stderr for people, ev for programs.
func (s *Stream) ErrOutput(ev any, b []byte) error {
	if s.programs() {
		return s.event(ev, false)
	}
	_, err := s.p.io.ErrOut.Write(b)
	return closed(err)
}

// Event is an event only programs are told of (a start, an end, a count):
// people see its effects elsewhere.
func (s *Stream) Event(ev any) error {
	if s.programs() {
		return s.event(ev, false)
	}
	return nil
}

// Row is an event people read as a row of a table: aligned under a header
// on a terminal, tab-separated when piped, its first cell alone with -o
// name; programs get ev, its secrets redacted.
func (s *Stream) Row(ev any, cells ...string) error {
	if s.programs() {
		return s.event(ev, true)
	}
	return s.rows.write(cells)
}

// Note is an event people read as a line on stderr (the stream was cut and
// taken up again); programs get ev, its secrets redacted.
func (s *Stream) Note(ev any, format string, args ...any) error {
	if s.programs() {
		return s.event(ev, true)
	}
	s.p.Note(format, args...)
	return nil
}

// Hold gives a place to keep a long string of an event until the event is
// printed, or nil when this stream prints no event's values (people's form:
// what they read of a value is its text).
func (s *Stream) Hold() *Held {
	if !s.programs() {
		return nil
	}
	return s.held.hold()
}

// Value is what an event's field holds for h: the value itself when it is
// short, else a placeholder this stream prints the value in place of.
func (s *Stream) Value(h *Held) string { return s.held.value(h) }

// Close prints what the stream gathered, when it gathered, and forgets
// every held value. A gathered stream's events are the program's output
// (run-code's Execution), printed as they came, not redacted: a verb
// whose events hold a server's words does not gather.
func (s *Stream) Close() error {
	defer s.held.close()
	if s.gather == nil {
		return nil
	}
	g := s.gather
	s.gather = nil
	return s.held.print(s.p.out, g.Result(), WriteJSON)
}

// Discard forgets the held values without printing anything: the run
// stopped before its end.
func (s *Stream) Discard() { s.held.close() }

// rowWriter writes a stream's rows for people one at a time: it cannot
// wait for the last row to align them, so on a terminal each column is
// as wide as the widest cell seen so far, under a header written with
// the first row.
type rowWriter struct {
	s      *Streams
	header []string
	names  bool // -o name: the first cell alone
	widths []int
	begun  bool
}

func (r *rowWriter) write(cells []string) error {
	safe := make([]string, len(cells))
	for i, c := range cells {
		if _, ok := r.s.styled.Load(c); ok {
			safe[i] = c
			continue
		}
		safe[i] = r.s.Safe(c)
	}
	switch {
	case r.names:
		if len(safe) == 0 {
			return nil
		}
		_, err := fmt.Fprintln(r.s.Out, safe[0])
		return err
	case !r.s.StdoutTTY:
		_, err := fmt.Fprintln(r.s.Out, strings.Join(safe, "\t"))
		return err
	}
	var b strings.Builder
	for i, c := range safe {
		r.widen(i, c)
	}
	if !r.begun && len(r.header) > 0 {
		head := make([]string, len(r.header))
		for i, h := range r.header {
			head[i] = strings.ToUpper(Escape(h))
			r.widen(i, head[i])
		}
		r.pad(&b, head, func(s string) string { return r.s.style(headerStyle, s) })
	}
	r.begun = true
	r.pad(&b, safe, nil)
	_, err := io.WriteString(r.s.Out, b.String())
	return err
}

// widen makes column i as wide as cell shows on a terminal (lipgloss
// counts wide characters twice and colours not at all).
func (r *rowWriter) widen(i int, cell string) {
	for len(r.widths) <= i {
		r.widths = append(r.widths, 0)
	}
	r.widths[i] = max(r.widths[i], lipgloss.Width(cell))
}

// pad writes one line of cells, each but the last padded to its column's
// width and two spaces apart.
func (r *rowWriter) pad(b *strings.Builder, cells []string, style func(string) string) {
	for i, c := range cells {
		shown := c
		if style != nil {
			shown = style(c)
		}
		b.WriteString(shown)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", r.widths[i]-lipgloss.Width(c)+2))
		}
	}
	b.WriteString("\n")
}
