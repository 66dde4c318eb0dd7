package output

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/shell"
)

// Printer is where every command's results, streams and errors go. The
// command line chooses their form once, as it is parsed: -o (FormatValue),
// a verb's flag that asks for JSON Lines (--stream) or bare IDs (-q), and
// --jq. A command hands the printer values, names, rows and events and
// never asks which form they take: every decision that depends on the
// form is made in this package.
type Printer struct {
	io     *Streams
	format Format // -o
	// lines is a verb's flag asking for JSON Lines (run-code --stream):
	// JSON, and a stream's events printed one by one, not gathered.
	lines bool
	// linesFlag is that flag as the command line gave it, "" for none.
	linesFlag string
	// bare is the verb's flag that asked for bare IDs (-q), "" for none:
	// names; an -o of another form is refused (CheckForms).
	bare string
	out  io.Writer // stdout, or the --jq filter in front of it
	jq   *JQWriter
	// plainErrors keeps errors one line even in JSON: --jq asked for
	// plain values, and a JSON error object would be one more thing to
	// filter.
	plainErrors bool
}

// NewPrinter prints tables on io until the command line says otherwise.
func NewPrinter(io *Streams) *Printer {
	return &Printer{io: io, format: Table, out: io.Out}
}

// SetFormat is -o's choice (FormatValue sets it as the flag is parsed).
func (p *Printer) SetFormat(f Format) { p.format = f }

// AskJSONLines is what a verb's JSON Lines flag (--stream) does as it is
// set: JSON, one event a line (or, set false, not).
func (p *Printer) AskJSONLines(on bool) { p.AskJSONLinesAs("--stream", on) }

// AskJSONLinesAs is AskJSONLines for the flag as the command line named
// it, which a refusal names.
func (p *Printer) AskJSONLinesAs(flag string, on bool) {
	p.lines, p.linesFlag = on, ""
	if on {
		p.linesFlag = flag
	}
}

// CheckForms refuses, before anything is sent, a command line whose flags
// ask for two forms of the output (docs/output.md, one rule): a verb's
// flag that asks for one (-q bare IDs, --stream JSON Lines) and an -o
// that asks for another (explicit says -o was given). --jq has its own
// check, FilterJQ. The forms agreeing (-q with -o name, --stream with -o
// json) is no conflict.
func (p *Printer) CheckForms(explicit bool) error {
	switch {
	case !explicit:
		return nil
	case p.bare != "" && p.format != Name:
		return abxerr.New(abxerr.Usage, "%s and -o %s exclude each other: %s prints the bare ID, as -o name does", p.bare, p.format, p.bare).
			WithHint("drop one of them: -o json prints the whole result")
	case p.lines && p.format != JSON:
		return abxerr.New(abxerr.Usage, "%s and -o %s exclude each other: %s prints JSON Lines", p.linesFlag, p.format, p.linesFlag).
			WithHint("drop -o: %s implies -o json", p.linesFlag)
	}
	return nil
}

// AskBareIDs is what a verb's bare-IDs flag (-q) does as it is set: the
// result's names alone, one a line (or, set false, not); CheckForms
// refuses an -o of another form.
func (p *Printer) AskBareIDs(flag string, on bool) {
	p.bare = ""
	if on {
		p.bare = flag
	}
}

// form is the form results take, from everything the command line asked.
func (p *Printer) form() Format {
	switch {
	case p.bare != "":
		return Name
	case p.lines || p.jq != nil:
		return JSON
	}
	return p.format
}

// human is true for tables, the forms that notes on stderr go with.
func (p *Printer) human() bool { f := p.form(); return f == Table || f == Wide }

// FilterJQ sends everything printed as data through q, which implies JSON;
// errors stay one line on stderr. It refuses, before anything is sent, a
// command line that asked for another form: -q's bare IDs, or an -o other
// than json (explicit says -o was given).
func (p *Printer) FilterJQ(ctx context.Context, q *JQ, explicit bool) error {
	p.plainErrors = true
	if p.bare != "" {
		return abxerr.New(abxerr.Usage, "--jq and %s exclude each other: %s prints a bare ID, not JSON", p.bare, p.bare).
			WithHint("use --jq alone, e.g. --jq .sandboxID")
	}
	if explicit && p.format != JSON {
		return abxerr.New(abxerr.Usage, "--jq filters JSON output; it cannot go with -o %s", p.format).
			WithHint("drop -o: --jq implies -o json")
	}
	p.jq = q.Filter(ctx, p.io.Out, p.io.StdoutTTY)
	p.out = p.jq
	return nil
}

// PlainErrors keeps errors one line whatever the form: --jq asked for
// plain values, even when its expression is refused.
func (p *Printer) PlainErrors() { p.plainErrors = true }

// Close flushes the --jq filter and returns its first failure.
func (p *Printer) Close(ctx context.Context) error {
	if p.jq == nil {
		return nil
	}
	jq := p.jq
	p.jq, p.out = nil, p.io.Out
	return jq.Close(ctx)
}

// Out is where data goes: stdout, or the --jq filter. Commands whose data
// is bytes (files read) copy them there.
func (p *Printer) Out() io.Writer { return p.out }

// Print prints one result in the chosen form: v as JSON, names one a line
// for -o name (and -q), and for tables whatever table draws (nil: nothing,
// the note said it all).
func (p *Printer) Print(v any, names []string, table func() error) error {
	switch p.form() {
	case JSON:
		return p.writeResultJSON(v)
	case Name:
		return p.names(names...)
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
	return p.writeRedacted(p.out, v, WriteJSON)
}

// writeRedacted encodes v to w with every secret redacted from its
// strings.
func (p *Printer) writeRedacted(w io.Writer, v any, encode func(io.Writer, any) error) error {
	if p.io.Secrets.Empty() {
		return encode(w, v)
	}
	var buf bytes.Buffer
	if err := encode(&buf, v); err != nil {
		return err
	}
	// A literal redacted is encoded again: its controls are escaped as
	// every JSON abx prints has them.
	_, err := w.Write(escapeJSONControls(p.io.Secrets.RedactJSON(buf.Bytes())))
	return err
}

// names prints names one a line: what other commands take as arguments.
// A name that holds a line break or a control is escaped, so that one line
// is always one name.
func (p *Printer) names(names ...string) error {
	for _, n := range names {
		if _, err := fmt.Fprintln(p.out, p.io.Safe(n)); err != nil {
			return err
		}
	}
	return nil
}

// Line prints one value (an ID, a URL) and a newline on the data stream,
// made safe as a table cell is: the table form of a result that is one
// value.
func (p *Printer) Line(s string) error {
	_, err := fmt.Fprintln(p.out, p.io.Safe(s))
	return err
}

// Env prints the variables that point a program at a server abx runs
// (the emulator, the engine), in the chosen form: export lines for a
// shell's eval, one JSON object, or the variables' names.
func (p *Printer) Env(env []string) error {
	m := make(map[string]string, len(env))
	names := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
		names = append(names, k)
	}
	// The server's own credentials are the point of these lines: they
	// print as they are, unredacted, as the export lines always did.
	switch p.form() {
	case JSON:
		return WriteJSON(p.out, m)
	case Name:
		return p.names(names...)
	}
	_, err := io.WriteString(p.out, shell.Exports(env))
	return err
}

// Table starts a table on stdout. Columns after the first wide ones show
// only with -o wide (see TablePrinter.Wide).
func (p *Printer) Table(header ...string) *TablePrinter {
	t := p.io.NewTable(header...)
	t.wideForm = p.form() == Wide
	return t
}

// Note tells people on stderr what a command did (kubectl's "pod/x
// deleted"); programs asking for JSON or names get only their data. Its
// arguments are often a server's words: the note is made safe whole.
func (p *Printer) Note(format string, args ...any) {
	if p.human() {
		_, _ = fmt.Fprintln(p.io.ErrOut, p.io.Safe(fmt.Sprintf(format, args...)))
	}
}

// Problem lists, for people, something wrong that is not the command's
// failure (abx config's problems): one error line on stderr, as an error
// reads. Programs find it in the command's JSON.
func (p *Printer) Problem(e *abxerr.Error) {
	if p.human() {
		_, _ = fmt.Fprintln(p.io.ErrOut, p.io.ErrorLine(e))
	}
}

// Error prints a command's error once on stderr, with the exit status it
// causes: one JSON object when JSON was asked for (-o json, --stream; -q's
// bare ID is no reason to drop it), else one line.
func (p *Printer) Error(e *abxerr.Error, exit int) {
	asJSON := (p.format == JSON || p.lines || p.jq != nil) && !p.plainErrors
	p.io.printError(e, exit, asJSON)
}

// Warn tells people and programs alike on stderr something they should
// know that is not an error (an emulator that does not isolate, a token
// an SDK will refuse): one line each, whatever the form.
func (p *Printer) Warn(format string, args ...any) {
	_, _ = fmt.Fprintln(p.io.ErrOut, p.io.Safe(fmt.Sprintf(format, args...)))
}
