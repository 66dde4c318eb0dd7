package output

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"
)

// TablePrinter prints rows for people on a terminal (aligned, upper-case
// headers, colour) and for programs through a pipe (tab-separated, no
// header, no colour, nothing truncated).
type TablePrinter struct {
	s      *Streams
	header []string
	rows   [][]string
}

// NewTable starts a table with these column names.
func (s *Streams) NewTable(header ...string) *TablePrinter {
	return &TablePrinter{s: s, header: header}
}

// Row adds a row; cells are already formatted (see Time and State). A cell
// abx did not colour itself has its secrets redacted and its controls
// escaped, on a terminal and in piped TSV alike: cells hold what servers and
// sandboxes send.
func (t *TablePrinter) Row(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		if _, ok := t.s.styled.Load(c); ok {
			row[i] = c
			continue
		}
		row[i] = t.s.Safe(c)
	}
	t.rows = append(t.rows, row)
}

// Render writes the table to stdout.
func (t *TablePrinter) Render() error {
	if !t.s.StdoutTTY {
		for _, r := range t.rows {
			if _, err := fmt.Fprintln(t.s.Out, strings.Join(r, "\t")); err != nil {
				return err
			}
		}
		return nil
	}
	header := make([]string, len(t.header))
	for i, h := range t.header {
		header[i] = t.s.style(headerStyle, strings.ToUpper(Escape(h)))
	}
	return writeAligned(t.s.Out, append([][]string{header}, t.rows...))
}

// writeAligned writes rows as left-aligned columns two blanks apart, each
// as wide as its widest cell, with no blanks at the end of a line.
func writeAligned(w io.Writer, rows [][]string) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	var line strings.Builder
	for _, r := range rows {
		line.Reset()
		for i, width := range widths {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			line.WriteString(c)
			line.WriteString(strings.Repeat(" ", width-displayWidth(c)+2))
		}
		if _, err := io.WriteString(w, strings.TrimRight(line.String(), " ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// displayWidth is the number of terminal columns text takes, colour
// sequences aside. Cells are escaped before they get here, so the only
// sequences are abx's own styling; widths are counted a rune at a time.
func displayWidth(text string) int {
	n := 0
	for i := 0; i < len(text); {
		if text[i] == '\x1b' {
			i += csiLen(text[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		n += displaywidth.Rune(r)
		i += size
	}
	return n
}

// csiLen is the length of the CSI sequence at the start of s (ESC [
// parameters, intermediates, one final byte), or 1 for a lone ESC.
func csiLen(s string) int {
	i := 2
	if len(s) < 2 || s[1] != '[' {
		return 1
	}
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		return i + 1
	}
	return 1
}

// A style is an SGR parameter list. Styled text resets every attribute at
// its end, so it never runs into what follows it.
type style string

const (
	headerStyle  style = "1"  // bold
	runningStyle style = "32" // green
	pausedStyle  style = "33" // yellow
	otherStyle   style = "31" // red
	faintStyle   style = "2"
	errorStyle   style = "1;31" // bold red
)

func (st style) render(text string) string { return "\x1b[" + string(st) + "m" + text + "\x1b[m" }

// style colours text, which must be safe already (see Safe): the escape
// sequences it adds are abx's own, and a table passes the result through
// as it is.
func (s *Streams) style(st style, text string) string {
	if !s.Color || text == "" {
		return text
	}
	out := st.render(text)
	s.styled.Store(out, struct{}{})
	return out
}

// State colours a sandbox state on a terminal. The server's word is made
// safe before it is coloured.
func (s *Streams) State(state string) string {
	state = s.Safe(state)
	switch state {
	case "running":
		return s.style(runningStyle, state)
	case "paused":
		return s.style(pausedStyle, state)
	case "":
		return "-"
	default:
		return s.style(otherStyle, state)
	}
}

// Faint dims secondary text on a terminal.
func (s *Streams) Faint(text string) string { return s.style(faintStyle, s.Safe(text)) }

// Time is relative ("5m ago", "in 2h") on a terminal and RFC 3339 when piped;
// an unknown time is "-".
func (s *Streams) Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if !s.StdoutTTY {
		return t.UTC().Format(time.RFC3339)
	}
	d := t.Sub(s.Now())
	switch {
	case d < 0:
		return Duration(-d) + " ago"
	case d > forever:
		return "never" // a paused sandbox's deadline is pushed a century out
	}
	return "in " + Duration(d)
}

// forever is further ahead than any real deadline (30 days at most).
const forever = 10 * 365 * 24 * time.Hour

// Duration is a short human duration: 45s, 12m, 3h, 9d, 100y.
func Duration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 2*365*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	default:
		return fmt.Sprintf("%dy", int(d.Hours()/24/365))
	}
}
