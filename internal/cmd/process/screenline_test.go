package process

import (
	"bytes"
	"strings"
	"testing"
)

// The line drawn again is what came after the last line feed, across
// writes, with the sequences that drew it; a line past the bound is not
// drawn again until the next line feed.
func TestScreenLineKeepsTheLastLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"a prompt", []string{"done\r\n\x1b[32muser$\x1b[m "}, "\x1b[32muser$\x1b[m "},
		{"across writes", []string{"out\r\nus", "er$ ", "ls -"}, "user$ ls -"},
		{"a line feed last", []string{"user$ ls\r\n"}, ""},
		{"nothing yet", nil, ""},
		{"past the bound", []string{"$ ", strings.Repeat("x", maxLine)}, ""},
		{"a new line after one past the bound", []string{strings.Repeat("x", maxLine+1), "\n$ "}, "$ "},
	} {
		var screen bytes.Buffer
		s := newScreenLine(&screen)
		for _, w := range c.writes {
			if _, err := s.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
		}
		shown := screen.Len()
		if err := s.redraw(); err != nil {
			t.Fatal(err)
		}
		if got := screen.String()[shown:]; got != c.want {
			t.Errorf("%s: drawn again %q, want %q", c.name, got, c.want)
		}
	}
}
