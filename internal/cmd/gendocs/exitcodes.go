package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The status tables of docs/exit-codes.md are made from abxerr's, as 'abx
// help exit-codes' is, between these marks; the prose around them is the
// page's own.
const (
	statusBegin      = "<!-- statuses: generated from abxerr by gendocs -->\n"
	passThroughBegin = "<!-- pass-through statuses: generated from abxerr by gendocs -->\n"
	tableEnd         = "<!-- end of generated table -->\n"
)

// writeStatusTables fills the page's two generated tables.
func writeStatusTables(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	page := string(b)
	if page, err = fillTable(page, statusBegin, statusTable(abxerr.StatusTable(), true)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if page, err = fillTable(page, passThroughBegin, statusTable(abxerr.PassThroughTable(), false)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFile(path, []byte(page))
}

func fillTable(page, begin, table string) (string, error) {
	i := strings.Index(page, begin)
	if i < 0 {
		return "", fmt.Errorf("no %q mark", strings.TrimSpace(begin))
	}
	j := strings.Index(page[i:], tableEnd)
	if j < 0 {
		return "", fmt.Errorf("no end mark after %q", strings.TrimSpace(begin))
	}
	return page[:i+len(begin)] + table + page[i+j:], nil
}

// statusTable is a Markdown table of rows, with their codes when asked.
func statusTable(rows []abxerr.StatusRow, codes bool) string {
	var b strings.Builder
	if codes {
		b.WriteString("| status | meaning | error codes |\n| --- | --- | --- |\n")
	} else {
		b.WriteString("| status | meaning |\n| --- | --- |\n")
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |", r.Status, r.Meaning)
		if codes {
			list := make([]string, len(r.Codes))
			for i, c := range r.Codes {
				list[i] = string(c)
			}
			b.WriteString(strings.TrimRight(" "+strings.Join(list, " "), " ") + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}
