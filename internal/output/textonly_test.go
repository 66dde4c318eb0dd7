package output

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestTextOnly(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ünïcode text\n", 1000) // more than the bytes held back
	for _, tc := range []struct {
		name   string
		writes []string
		want   string // written
		refuse bool
	}{
		{"short text", []string{"hi\tthere\r\n"}, "hi\tthere\r\n", false},
		{"a character cut between writes", []string{"caf\xc3", "\xa9\n"}, "café\n", false},
		{"long text, in pieces", []string{long[:5000], long[5000:9001], long[9001:]}, long, false},
		{"a NUL at once", []string{"ab\x00c"}, "", true},
		{"an escape sequence", []string{"title \x1b]0;pwned\a"}, "", true},
		{"not UTF-8", []string{"\xff\xfe"}, "", true},
		{"a C1 control", []string{"\u009b31m"}, "", true},
		{"DEL", []string{"a\x7f"}, "", true},
		{"ends inside a character", []string{"caf\xc3"}, "", true},
		{"binary after the held bytes", []string{long, "\x00more"}, long, true},
	} {
		var out bytes.Buffer
		w := NewTextOnly(&out)
		var err error
		for _, p := range tc.writes {
			if _, err = w.Write([]byte(p)); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Flush()
		}
		if errors.Is(err, ErrNotText) != tc.refuse || out.String() != tc.want {
			t.Errorf("%s: wrote %d bytes, %v; want %d, refused %v", tc.name, out.Len(), err, len(tc.want), tc.refuse)
		}
	}
}
