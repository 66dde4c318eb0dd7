package output

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/abx-dev/abx/internal/human"
)

// TablePrinter prints rows for people on a terminal (aligned, upper-case
// headers, colour) and for programs through a pipe (tab-separated, no
// header, no colour, nothing truncated).
type TablePrinter struct {
	s      *Streams
	header []string
	rows   [][]string
	// wide are the columns, after header's, shown only in the wide form:
	// -o wide (wideForm), or a verb's own flag that asks for them.
	wide     []string
	wideForm bool
}

// NewTable starts a table with these column names.
func (s *Streams) NewTable(header ...string) *TablePrinter {
	return &TablePrinter{s: s, header: header}
}

// WithWide adds columns shown only with -o wide, or when show is true (a
// verb's own flag for them, such as files ls --long). Rows give every
// column's cell; the ones not shown are left out.
func (t *TablePrinter) WithWide(show bool, header ...string) *TablePrinter {
	t.wide = header
	t.wideForm = t.wideForm || show
	return t
}

// columns are the names of the columns shown.
func (t *TablePrinter) columns() []string {
	if t.wideForm {
		return append(t.header[:len(t.header):len(t.header)], t.wide...)
	}
	return t.header
}

// Row adds a row; cells are already formatted (see Time and State). A cell
// abx did not colour itself has its secrets redacted and its controls
// escaped, on a terminal and in piped TSV alike: cells hold what servers and
// sandboxes send.
func (t *TablePrinter) Row(cells ...string) {
	if n := len(t.columns()); len(cells) > n {
		cells = cells[:n]
	}
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
	var buf bytes.Buffer
	tbl := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: "  ", Overwrite: true}),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithHeaderAutoFormat(tw.Off), // headers are upper-cased here, before styling
	)
	columns := t.columns()
	header := make([]string, len(columns))
	for i, h := range columns {
		header[i] = t.s.style(headerStyle, strings.ToUpper(Escape(h)))
	}
	rows := t.rows
	if t.s.Width > 0 {
		header, rows = fit(t.s.Width, header, rows)
	}
	tbl.Header(header)
	for _, r := range rows {
		if err := tbl.Append(r); err != nil {
			return err
		}
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	// The last column's padding would leave trailing blanks on every line.
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(t.s.Out, trimTrailing(line)+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// trimTrailing drops a line's trailing blanks and the colour resets
// tablewriter puts after them; styled cells reset themselves.
func trimTrailing(line string) string {
	for {
		trimmed := strings.TrimRight(line, " \n")
		trimmed = strings.TrimSuffix(trimmed, "\x1b[0m")
		if trimmed == line {
			return line
		}
		line = trimmed
	}
}

var (
	headerStyle  = lipgloss.NewStyle().Bold(true)
	runningStyle = lipgloss.NewStyle().Foreground(lipgloss.Green)
	pausedStyle  = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	otherStyle   = lipgloss.NewStyle().Foreground(lipgloss.Red)
	faintStyle   = lipgloss.NewStyle().Faint(true)
)

// style colours text, which must be safe already (see Safe): the escape
// sequences it adds are abx's own, and a table passes the result through
// as it is.
func (s *Streams) style(st lipgloss.Style, text string) string {
	if !s.Color || text == "" {
		return text
	}
	out := st.Render(text)
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

// Bytes is a size for people on a terminal (binary units, three
// significant figures: 812 B, 4.00 KiB, 211 MiB, 1.93 GiB) and the exact
// count of bytes when piped.
func (s *Streams) Bytes(n int64) string {
	if !s.StdoutTTY {
		return strconv.FormatInt(n, 10)
	}
	return human.Bytes(n)
}
