package output

import (
	"net/http"
	"strings"
	"testing"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/secrets"
)

// hostile are names a server or a sandbox might send to take over a
// terminal or break piped TSV.
var hostile = []struct{ raw, shown string }{
	{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
	{"\x1b[2J", `\x1b[2J`},
	{"a\nb", `a\nb`},
	{"a\tb", `a\tb`},
	{"\u009b31m", `\u009b31m`},
	{"a\rb", `a\rb`},
	{"del\x7f", `del\x7f`},
	{"bad\xffutf8", `bad\xffutf8`},
	{"evil\u202etxt.exe", `evil\u202etxt.exe`},
}

func TestEscape(t *testing.T) {
	for _, tc := range hostile {
		got := Escape(tc.raw)
		if got != tc.shown {
			t.Errorf("Escape(%q) = %q, want %q", tc.raw, got, tc.shown)
		}
		if Escape(got) != got {
			t.Errorf("Escape is not idempotent on %q: %q", got, Escape(got))
		}
	}
	for _, ok := range []string{"", "plain", "héllo wörld", "日本語", `C:\path`, "\ufffd"} {
		if got := Escape(ok); got != ok {
			t.Errorf("Escape(%q) = %q, want it unchanged", ok, got)
		}
	}
	if got := escapeKeepNewlines("a\nb\x1b\n"); got != "a\nb\\x1b\n" {
		t.Errorf("escapeKeepNewlines = %q", got)
	}
}

// noControls fails when s holds a control that is not abx's own layout
// (newline ends a line; tab separates piped cells).
func noControls(t *testing.T, what, s string, allowed string) {
	t.Helper()
	for _, r := range s {
		if (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)) && !strings.ContainsRune(allowed, r) {
			t.Errorf("%s holds control %U: %q", what, r, s)
			return
		}
	}
}

func TestTableEscapesHostileCells(t *testing.T) {
	pipe, _, out, _ := Test(false)
	tb := pipe.NewTable("name", "state")
	for _, tc := range hostile {
		tb.Row(tc.raw, pipe.State(tc.raw))
	}
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(hostile) {
		t.Fatalf("piped table has %d lines, want %d: %q", len(lines), len(hostile), out.String())
	}
	for i, tc := range hostile {
		want := tc.shown + "\t" + tc.shown
		if lines[i] != want {
			t.Errorf("piped row %d = %q, want %q", i, lines[i], want)
		}
	}
	noControls(t, "piped table", strings.ReplaceAll(out.String(), "\x1b", "ESC"), "\t\n")

	tty, _, out, _ := Test(true)
	tb = tty.NewTable("name", "state")
	for _, tc := range hostile {
		tb.Row(tc.raw, tty.State(tc.raw))
	}
	tb.Row("ok", tty.State("running"))
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// abx's own colours stay; none of the server's sequences get through.
	if !strings.Contains(got, "\x1b[32mrunning") {
		t.Errorf("the running state lost its colour: %q", got)
	}
	for _, bad := range []string{"\x1b]0;", "\x1b[2J", "\u009b", "\x07", "\r", "\x7f", "\xff", "\u202e", "a\tb", "a\nb"} {
		if strings.Contains(got, bad) {
			t.Errorf("terminal table holds %q raw: %q", bad, got)
		}
	}
	for _, tc := range hostile {
		if !strings.Contains(got, tc.shown) {
			t.Errorf("terminal table does not show %q: %q", tc.shown, got)
		}
	}
	// The only escape sequences left are colours (SGR).
	if rest := human.StripANSI(got); strings.ContainsRune(rest, 0x1b) {
		t.Errorf("a non-colour escape remains: %q", rest)
	}
	if n := strings.Count(got, "\n"); n != len(hostile)+2 {
		t.Errorf("terminal table has %d lines, want %d: %q", n, len(hostile)+2, got)
	}
}

func TestNamesNotesAndLinesEscape(t *testing.T) {
	s, _, out, errOut := Test(false)
	p := NewPrinter(s)
	p.SetFormat(Name)
	if err := p.Print(nil, []string{"a\nb", "\x1b[2Jid"}, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "a\\nb\n\\x1b[2Jid\n"; got != want {
		t.Errorf("-o name printed %q, want %q", got, want)
	}
	out.Reset()
	if err := p.Line("https://x\x1b]0;t\x07"); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "https://x\\x1b]0;t\\a\n"; got != want {
		t.Errorf("Line printed %q, want %q", got, want)
	}
	p.SetFormat(Table)
	p.Note("sandbox %s killed", "x\x1b]0;pwned\x07\ny")
	if got, want := errOut.String(), "sandbox x\\x1b]0;pwned\\a\\ny killed\n"; got != want {
		t.Errorf("Note printed %q, want %q", got, want)
	}
}

func TestErrorLineEscapesTheServersWords(t *testing.T) {
	for _, tty := range []bool{false, true} {
		s, _, _, _ := Test(tty)
		e := abxerr.New(abxerr.Server, "boom \x1b[2J\x1b]0;pwned\x07 \u009b31m").
			WithHint("hint\x1b[31m")
		e.RequestID = "req\x1b[1m"
		line := s.ErrorLine(e)
		for _, bad := range []string{"\x1b[2J", "\x1b]0", "\x07", "\u009b", "\x1b[31m", "\x1b[1m"} {
			if strings.Contains(line, bad) {
				t.Errorf("tty=%v: %q raw in %q", tty, bad, line)
			}
		}
		for _, want := range []string{`boom \x1b[2J\x1b]0;pwned\a \u009b31m`, `hint\x1b[31m`, `(request_id req\x1b[1m)`} {
			if !strings.Contains(line, want) {
				t.Errorf("tty=%v: %q missing from %q", tty, want, line)
			}
		}
		if tty && !strings.HasPrefix(line, errorStyle.Render("error[E5002]:")) {
			t.Errorf("the label lost its colour: %q", line)
		}
	}
}

func TestJSONEscapesControls(t *testing.T) {
	s, _, out, errOut := Test(false)
	p := NewPrinter(s)
	p.SetFormat(JSON)
	if err := p.Print(map[string]string{"name": "\x1b]0;pwned\x07\u009b"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, `\u001b]0;pwned\u0007`) || strings.ContainsRune(got, 0x1b) {
		t.Errorf("JSON output %q", got)
	}
	p.Error(abxerr.New(abxerr.Server, "boom \x1b[2J"), 1)
	if got := errOut.String(); !strings.Contains(got, `boom \u001b[2J`) || strings.ContainsRune(got, 0x1b) {
		t.Errorf("JSON error %q", got)
	}
}

const apiKey = "e2b_0123456789abcdef0123456789abcdef01234567"

// A server's error body may escape a secret in any way JSON allows: it is
// decoded before it is shown, so the secret is found and redacted.
func TestAnEscapedSecretInAnErrorBodyIsRedacted(t *testing.T) {
	st, _, _, errOut := Test(false)
	st.Secrets.Add("sk/live+Key==1")
	body := abxerr.ParseHTTPBody([]byte(`{"error":"refused sk\u002flive\u002bKey==1"}`))
	NewPrinter(st).Error(abxerr.FromHTTP(http.StatusBadRequest, body.Message), 1)
	if got := errOut.String(); !strings.Contains(got, "refused REDACTED") || strings.Contains(got, "live") {
		t.Errorf("error line %q", got)
	}
}

// Redaction keeps printed JSON what every JSON abx prints is: a redacted
// string's controls and reordering marks are escaped as all others are.
func TestRedactedJSONHasItsControlsEscaped(t *testing.T) {
	s, _, out, _ := Test(false)
	s.Secrets.Add(apiKey)
	p := NewPrinter(s)
	p.SetFormat(JSON)
	if err := p.Print(map[string]string{"m": "\u202e " + apiKey + " \u0007"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, `"\u202e REDACTED \u0007"`) {
		t.Errorf("printed %q", got)
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		s, _, out, errOut := Test(false)
		s.Secrets.Add(apiKey)
		p := NewPrinter(s)
		e := abxerr.New(abxerr.Unauthorized, "invalid API key %s", apiKey).WithHint("not %s", apiKey)
		e.RequestID = apiKey
		if asJSON {
			p.SetFormat(JSON)
			if err := p.Print(map[string]string{"error": apiKey}, nil, nil); err != nil {
				t.Fatal(err)
			}
		} else {
			p.Note("note %s", apiKey)
			tb := p.Table("a", "b")
			tb.Row(apiKey, s.State(apiKey))
			if err := tb.Render(); err != nil {
				t.Fatal(err)
			}
			p.SetFormat(Name)
			if err := p.Print(nil, []string{apiKey}, nil); err != nil {
				t.Fatal(err)
			}
		}
		p.Error(e, 4)
		all := out.String() + errOut.String()
		if strings.Contains(all, apiKey) || !strings.Contains(all, secrets.Redacted) {
			t.Errorf("json=%v: printed %q", asJSON, all)
		}
	}
}

func TestSafeErrOutRedactsWholeLines(t *testing.T) {
	s, _, _, errOut := Test(false)
	s.Secrets.Add(apiKey)
	w := s.SafeErrOut()
	if w != s.SafeErrOut() {
		t.Error("each call made another writer")
	}
	half := len(apiKey) / 2
	_, _ = w.Write([]byte("< X-Echo: " + apiKey[:half]))
	if errOut.Len() != 0 {
		t.Errorf("a partial line was written: %q", errOut.String())
	}
	_, _ = w.Write([]byte(apiKey[half:] + "\x1b]0;t\x07\n> next\n"))
	if got, want := errOut.String(), "< X-Echo: REDACTED\\x1b]0;t\\a\n> next\n"; got != want {
		t.Errorf("trace %q, want %q", got, want)
	}
}

// An error put together without abxerr.New (a path before envd's words)
// is still held to what an error quotes, in the line and in JSON.
func TestErrorsCutLongWords(t *testing.T) {
	long := "/" + strings.Repeat("a", 100000)
	e := &abxerr.Error{Code: abxerr.Rejected, Message: long + ": file name too long", Hint: "not " + long}
	want := "/" + strings.Repeat("a", abxerr.MaxQuoted-1) + "… (100001 bytes)"
	s, _, _, errOut := Test(false)
	if line := s.ErrorLine(e); line != "error[E5003]: "+want+": file name too long; not "+want {
		t.Errorf("line %.400q", line)
	}
	p := NewPrinter(s)
	p.SetFormat(JSON)
	p.Error(e, 1)
	if got := errOut.String(); len(got) > 1000 || !strings.Contains(got, want+": file name too long") {
		t.Errorf("JSON error %.400q", got)
	}
}
