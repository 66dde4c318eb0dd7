package abxerr

import (
	"errors"
	"strings"
	"testing"
)

// What an error quotes, user input or a server's text, is cut: a 100 KB
// argument must not make a 100 KB error line. What is kept says how much
// there was.
func TestErrorsCutWhatTheyQuote(t *testing.T) {
	long := strings.Repeat("a", 100000)
	head := strings.Repeat("a", MaxQuoted)
	cases := []struct {
		name string
		e    *Error
		msg  string
		hint string
	}{
		{"short kept", New(InvalidInput, "invalid sandbox ID %q", "a b"), `invalid sandbox ID "a b"`, ""},
		{"at the bound kept", New(InvalidInput, "invalid %s", head), "invalid " + head, ""},
		{"quoted", New(InvalidInput, "invalid sandbox ID %q", long),
			`invalid sandbox ID "` + head + `…" (100000 bytes)`, ""},
		{"plain", New(NotFound, "no such path %s here", long), "no such path " + head + "… (100000 bytes) here", ""},
		{"an error's text", New(Rejected, "cannot: %v", errors.New(long)), "cannot: " + head + "… (100000 bytes)", ""},
		{"by character", New(InvalidInput, "%s", strings.Repeat("é", 300)),
			strings.Repeat("é", MaxQuoted) + "… (600 bytes)", ""},
		{"the hint too", New(Usage, "bad").WithHint("try %q", long), "bad", `try "` + head + `…" (100000 bytes)`},
		{"numbers as they are", New(Usage, "%d of %q", 12345, "x"), `12345 of "x"`, ""},
		{"server text", FromHTTP(500, long), head + "… (100000 bytes) (HTTP 500)", ""},
		{"an unforeseen failure", From(errors.New(long)), "abx failed: " + head + "… (100000 bytes)",
			"run again with --debug; if it persists, report it with that output"},
	}
	for _, tc := range cases {
		if tc.e.Message != tc.msg || tc.e.Hint != tc.hint {
			t.Errorf("%s: message %.300q hint %.300q, want %.300q and %.300q", tc.name, tc.e.Message, tc.e.Hint, tc.msg, tc.hint)
		}
	}
	if got := Cut("short"); got != "short" {
		t.Errorf("Cut(short) = %q", got)
	}
}

// Whatever put an error's text together, the doors render it with every
// word held to the bound; what Cut made is not cut twice.
func TestCutWords(t *testing.T) {
	long := strings.Repeat("a", 100000)
	head := strings.Repeat("a", MaxQuoted)
	cases := []struct{ in, want string }{
		{"short words stay", "short words stay"},
		{"/" + long + ": no such file", "/" + head[1:] + "… (100001 bytes): no such file"},
		{`unknown command "` + long + `" for "abx"`, `unknown command "` + head[1:] + `…" (100000 bytes) for "abx"`},
		{"a\n\t" + long + "  b", "a\n\t" + head + "… (100000 bytes)  b"},
		{New(InvalidInput, "invalid ID %q", long).Message, `invalid ID "` + head + `…" (100000 bytes)`},
		{FromHTTP(500, long).Message, head + "… (100000 bytes) (HTTP 500)"},
		{strings.Repeat("word ", 100), strings.Repeat("word ", 100)},
	}
	for _, tc := range cases {
		if got := CutWords(tc.in); got != tc.want {
			t.Errorf("CutWords(%.80q…) = %.300q, want %.300q", tc.in, got, tc.want)
		}
	}
}
