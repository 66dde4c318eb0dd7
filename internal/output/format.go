package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/abxerr"
)

// Format is the -o/--output choice.
type Format string

// The formats every command accepts.
const (
	Table Format = "table" // aligned for people; tab-separated when piped
	Wide  Format = "wide"  // a table with more columns
	JSON  Format = "json"  // the documented JSON shape (docs/json.md)
	Name  Format = "name"  // one kind/name a line, kubectl style
)

// Formats lists the accepted values of -o.
var Formats = []Format{Table, Wide, JSON, Name}

// ParseFormat reads -o; an unknown value is a usage error.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", abxerr.New(abxerr.Usage, "unknown output format %q", s).
		WithHint("use -o with one of: %s", strings.Join(names, ", "))
}

// WriteJSON writes v as indented JSON and a newline. HTML is not escaped:
// the readers are jq and programs, not browsers. Every control is
// escaped (see escapeJSONControls).
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v, "  ") }

// WriteJSONLine writes v as one compact line: the form of JSON Lines
// streams and of errors on stderr.
func WriteJSONLine(w io.Writer, v any) error { return writeJSON(w, v, "") }

// writeJSON is the one encoder of abx's JSON output: results, JSON Lines
// events, errors, and (through escapeJSONControls) the strings redaction
// encodes again, held values and --jq's JSON.
func writeJSON(w io.Writer, v any, indent string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONControls(buf.Bytes()))
	return err
}

// escapeJSONControls writes, in JSON encoding/json (or gojq) made, the
// characters those leave raw that a terminal acts on or that reorder what
// it shows, as \u escapes: DEL, the C1 controls (U+0080 to U+009F; U+009B
// is CSI, which terminals read as ESC [) and the bidirectional marks
// (docs/reliability.md, "Controls are escaped, not dropped"). The C0
// controls are escaped already. JSON holds none of these outside its
// strings, so only strings change, and a decoder reads the same text.
func escapeJSONControls(b []byte) []byte {
	i := len(b)
	// Each starts with one of these bytes: DEL, C1's lead byte, U+061C's
	// and the marks' from U+200E on.
	for _, lead := range []byte{0x7f, 0xc2, 0xd8, 0xe2} {
		if j := bytes.IndexByte(b[:i], lead); j >= 0 {
			i = j
		}
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x7f && unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// FormatValue is -o as a flag's value (a pflag.Value): the format is
// parsed once, where the flag is, and the printer takes it at once, so
// that even a command line refused after -o gets its error in that form.
func (p *Printer) FormatValue() *FormatFlag { return &FormatFlag{p: p} }

// FormatFlag is the value of -o/--output.
type FormatFlag struct {
	p   *Printer
	set bool
}

func (v *FormatFlag) String() string { return string(v.p.format) }

// Set parses the format and hands it to the printer.
func (v *FormatFlag) Set(s string) error {
	f, err := ParseFormat(s)
	if err != nil {
		return err
	}
	v.p.SetFormat(f)
	v.set = true
	return nil
}

// Type is how help names the value.
func (v *FormatFlag) Type() string { return "string" }

// Given tells whether -o was on the command line.
func (v *FormatFlag) Given() bool { return v.set }
