package output

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Printer is where every command's results and errors go. The root decides
// once, from -o, --jq and --stream, what form they take; a command hands it
// values, names and rows and never looks at the format itself, except to
// know whether people are reading (Human) or how wide a table to draw.
type Printer struct {
	io     *Streams
	format Format
	out    io.Writer // stdout, or the --jq filter in front of it
	jq     *JQWriter
	// plainErrors keeps errors one line even in JSON: --jq asked for plain
	// values, and a JSON error object would be one more thing to filter.
	plainErrors bool
}

// NewPrinter prints tables on io until the root says otherwise.
func NewPrinter(io *Streams) *Printer {
	return &Printer{io: io, format: Table, out: io.Out}
}

// SetFormat is the root's choice of -o.
func (p *Printer) SetFormat(f Format) { p.format = f }

// PlainErrors keeps errors one line whatever the format: --jq asked for
// plain values, even when its expression is refused.
func (p *Printer) PlainErrors() { p.plainErrors = true }

// FilterJQ sends everything printed as data through q, which implies JSON.
// Errors stay one line on stderr.
func (p *Printer) FilterJQ(ctx context.Context, q *JQ) {
	p.format = JSON
	p.jq = q.Filter(ctx, p.io.Out, p.io.StdoutTTY)
	p.out = p.jq
	p.plainErrors = true
}

// Close flushes the --jq filter and returns its first failure.
func (p *Printer) Close(ctx context.Context) error {
	if p.jq == nil {
		return nil
	}
	jq := p.jq
	p.jq, p.out = nil, p.io.Out
	return jq.Close(ctx)
}

// JSON is true when programs read the output: -o json, --jq, --stream.
func (p *Printer) JSON() bool { return p.format == JSON }

// Human is true for tables, the formats that notes on stderr go with.
func (p *Printer) Human() bool { return p.format == Table || p.format == Wide }

// Wide is true for -o wide.
func (p *Printer) Wide() bool { return p.format == Wide }

// Out is where data goes: stdout, or the --jq filter.
func (p *Printer) Out() io.Writer { return p.out }

// Print prints one result in the chosen form: v as JSON, names one a line
// for -o name, and for tables whatever table draws (nil: nothing, the note
// said it all).
func (p *Printer) Print(v any, names []string, table func() error) error {
	switch p.format {
	case JSON:
		return p.writeResultJSON(v)
	case Name:
		return p.Names(names...)
	}
	if table == nil {
		return nil
	}
	return table()
}

// writeResultJSON writes a command's result with every secret redacted
// from its strings. Servers fill results; a secret they echo must not reach
// stdout any more than a terminal.
func (p *Printer) writeResultJSON(v any) error {
	if p.io.Secrets.empty() {
		return WriteJSON(p.out, v)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, v); err != nil {
		return err
	}
	_, err := p.out.Write(p.io.Secrets.redactJSON(buf.Bytes()))
	return err
}

// Names prints names one a line: what other commands take as arguments.
// A name that holds a line break or a control is escaped, so that one line
// is always one name.
func (p *Printer) Names(names ...string) error {
	for _, n := range names {
		if _, err := fmt.Fprintln(p.out, p.io.Safe(n)); err != nil {
			return err
		}
	}
	return nil
}

// Value prints v as indented JSON, whatever the format: for commands whose
// only result is JSON or plain text and which chose JSON already. It is
// the program's output (run-code's), printed as it came, like Event's.
func (p *Printer) Value(v any) error { return WriteJSON(p.out, v) }

// Event prints v as one JSON line: an event of a stream.
func (p *Printer) Event(v any) error { return WriteJSONLine(p.out, v) }

// Line prints one value (an ID, a URL) and a newline on the data stream,
// made safe as a table cell is.
func (p *Printer) Line(s string) error {
	_, err := fmt.Fprintln(p.out, p.io.Safe(s))
	return err
}

// Table starts a table on stdout.
func (p *Printer) Table(header ...string) *TablePrinter { return p.io.NewTable(header...) }

// Note tells people on stderr what a command did (kubectl's "pod/x
// deleted"); programs asking for JSON or names get only their data. Its
// arguments are often a server's words: the note is made safe whole.
func (p *Printer) Note(format string, args ...any) {
	if p.Human() {
		_, _ = fmt.Fprintln(p.io.ErrOut, p.io.Safe(fmt.Sprintf(format, args...)))
	}
}

// Error prints a command's error once on stderr, with the exit status it
// causes: one JSON object in a JSON mode, else one line.
func (p *Printer) Error(e *abxerr.Error, exit int) {
	p.io.printError(e, exit, p.format == JSON && !p.plainErrors)
}
