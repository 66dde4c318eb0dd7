package output

import "github.com/charmbracelet/x/ansi"

// Fitting a table to a terminal (docs/output.md): a table wider than the
// terminal would wrap, each row over two lines, and no column would line
// up. So, on a terminal of known width, its widest columns are narrowed
// one column of text at a time until it fits, and their cells (and
// cut with an ellipsis. The first column is never cut: it is what names
// the row (an ID, a name) and what a user copies. Nor is a column cut
// narrower than its header, or than minFit, under which it would say
// nothing. A table that would not fit even so (many short columns, as
// metrics') is left whole, to wrap as it would: cutting it would lose
// words and not save the lines. Piped output is never fitted.
const (
	gap    = 2 // the blanks between two columns
	minFit = 5 // the narrowest a cut column gets, its ellipsis included
)

// fit returns header and rows with their cells cut to width columns of
// text, as far as the floors allow.
func fit(width int, header []string, rows [][]string) ([]string, [][]string) {
	n := len(header)
	widths := make([]int, n)
	for i, h := range header {
		widths[i] = ansi.StringWidth(h)
	}
	for _, r := range rows {
		for i, c := range r {
			if i < n {
				widths[i] = max(widths[i], ansi.StringWidth(c))
			}
		}
	}
	total := gap * (n - 1)
	for _, w := range widths {
		total += w
	}
	if total <= width {
		return header, rows
	}
	floor := make([]int, n)
	for i, w := range widths {
		floor[i] = min(w, max(ansi.StringWidth(header[i]), minFit))
	}
	floor[0] = widths[0]
	least := gap * (n - 1)
	for _, f := range floor {
		least += f
	}
	if least > width {
		return header, rows
	}
	for total > width {
		widest := -1
		for i := 1; i < n; i++ {
			if widths[i] > floor[i] && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		widths[widest]--
		total--
	}
	cut := func(cells []string) []string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = c
			if i < n && ansi.StringWidth(c) > widths[i] {
				out[i] = ansi.Truncate(c, widths[i], "…")
			}
		}
		return out
	}
	fitted := make([][]string, len(rows))
	for i, r := range rows {
		fitted[i] = cut(r)
	}
	return cut(header), fitted
}
