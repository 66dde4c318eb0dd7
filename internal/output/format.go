package output

import (
	"encoding/json"
	"io"
	"strings"

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
// the readers are jq and programs, not browsers.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJSONLine writes v as one compact line: the form of JSON Lines
// streams and of errors on stderr.
func WriteJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
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
