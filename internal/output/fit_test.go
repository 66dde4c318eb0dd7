package output

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// On a terminal of known width a table is fitted to it: its widest
// columns are cut with an ellipsis, the first (the ID a user copies)
// never; piped, nothing is cut whatever the width.
func TestTablesFitTheTerminal(t *testing.T) {
	long := "bash -l -c " + strings.Repeat("python3 train.py --epochs 10 ", 4)
	rows := [][]string{
		{"default--code-interpreter-x7k2p", "4242", long, "/home/user/projects/a-rather-long-directory-name"},
		{"default--code-interpreter-x7k2p", "7", "sleep 600", "/home/user"},
	}
	s, _, out, _ := Test(true)
	s.Width = 80
	tb := s.NewTable("sandbox id", "pid", "command", "cwd")
	for _, r := range rows {
		tb.Row(r...)
	}
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns on an 80-column terminal: %q", w, l)
		}
	}
	plain := ansi.Strip(out.String())
	if !strings.Contains(plain, "…") || strings.Count(plain, "default--code-interpreter-x7k2p") != 2 ||
		!strings.Contains(plain, "sleep 600") || !strings.Contains(plain, "4242") {
		t.Errorf("fitted table:\n%s", plain)
	}

	// A table that fits is left alone; so is one on a terminal of unknown
	// width.
	for _, width := range []int{300, 0} {
		s, _, out, _ = Test(true)
		s.Width = width
		tb = s.NewTable("sandbox id", "pid", "command", "cwd")
		for _, r := range rows {
			tb.Row(r...)
		}
		if err := tb.Render(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "…") || !strings.Contains(out.String(), long) {
			t.Errorf("width %d: cut:\n%s", width, out)
		}
	}

	// Piped: never cut.
	s, _, out, _ = Test(false)
	s.Width = 80
	tb = s.NewTable("sandbox id", "pid", "command", "cwd")
	tb.Row(rows[0]...)
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if out.String() != strings.Join(rows[0], "\t")+"\n" {
		t.Errorf("piped: %q", out)
	}
}

// Headers are never cut, and a table of short columns that cannot fit
// even with its cells cut to its headers is left whole rather than made a
// row of ellipses.
func TestFitNeverCutsHeaders(t *testing.T) {
	s, _, out, _ := Test(true)
	s.Width = 40
	tb := s.NewTable("sandbox id", "state", "mem used", "mem total", "disk used", "disk total")
	tb.Row("default--base-x7k2p", "running", "211 MiB", "985 MiB", "1.32 GiB", "1.90 GiB")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	if got := ansi.Strip(out.String()); strings.Contains(got, "…") || !strings.Contains(got, "DISK TOTAL") || !strings.Contains(got, "1.90 GiB") || !strings.Contains(got, "running") {
		t.Errorf("cut:\n%s", got)
	}
}
