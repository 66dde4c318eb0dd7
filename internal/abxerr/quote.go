package abxerr

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// MaxQuoted is how many characters of a text an error quotes, whether the
// text came from the user (an argument, a flag's value, a path) or from a
// server: enough for any ID, path or message written for people, not a
// 100 KB argument or a proxy's HTML page. Longer text keeps its first
// MaxQuoted characters, then "…" and how long it was: 'aaa… (100000
// bytes)' (docs/errors.md).
const MaxQuoted = 200

// Cut is text as an error quotes it: itself when it has at most MaxQuoted
// characters, else its first MaxQuoted characters (never cut inside one),
// "…" and its size in bytes.
func Cut(s string) string {
	head, ok := cutHead(s)
	if !ok {
		return s
	}
	return head + "… " + sizeNote(s)
}

// cutHead is the first MaxQuoted characters of s, and whether s has more.
func cutHead(s string) (string, bool) {
	if len(s) <= MaxQuoted {
		return s, false // fewer bytes than the bound: fewer characters too
	}
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return s[:i], true
		}
		n++
	}
	return s, false
}

func sizeNote(s string) string {
	return "(" + strconv.Itoa(len(s)) + " bytes)"
}

// cutArgs replaces each text argument of an error's message or hint (a
// string, an error, a fmt.Stringer) that is longer than MaxQuoted with its
// cut form, so that every error New makes obeys the rule whatever its
// format says. Other arguments (numbers) are left as they are.
func cutArgs(args []any) []any {
	var out []any
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case error:
			s = v.Error()
		case fmt.Stringer:
			s = v.String()
		default:
			continue
		}
		if _, long := cutHead(s); !long {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = cutText(s)
	}
	if out == nil {
		return args
	}
	return out
}

// cutText formats as its head would, under the format's own verb, with
// "…" at the end of the head and the size after it: %q gives
// '"aaa…" (100000 bytes)', the size outside the quotes, where it cannot
// be taken for part of the value.
type cutText string

func (c cutText) Format(f fmt.State, verb rune) {
	head, _ := cutHead(string(c))
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), head+"…")
	_, _ = io.WriteString(f, " "+sizeNote(string(c)))
}

// CutWords holds an error's whole text to the rule, whoever wrote it: each
// word (a run without white space: a path, an ID, a flag, a server's token)
// longer than MaxQuoted characters is cut as Cut cuts, its closing quote
// and trailing punctuation kept, the size that of what is quoted:
// '"aaa…" (100000 bytes)', '/aaa… (100001 bytes):'. The doors apply it where they render an error (the command
// line, the MCP tools, the engine), so that a message put together
// without New (a path prefixed to envd's words, cobra's own) is bounded
// too. A word Cut already made is left as it is.
func CutWords(text string) string {
	if len(text) <= MaxQuoted {
		return text
	}
	var b strings.Builder
	for rest := text; rest != ""; {
		i := strings.IndexFunc(rest, unicode.IsSpace)
		if i < 0 {
			i = len(rest)
		}
		b.WriteString(cutWord(rest[:i]))
		rest = rest[i:]
		j := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsSpace(r) })
		if j < 0 {
			j = len(rest)
		}
		b.WriteString(rest[:j])
		rest = rest[j:]
	}
	return b.String()
}

// cutWord is a word as CutWords leaves it.
func cutWord(w string) string {
	open := ""
	if w != "" && strings.ContainsRune(`"'`+"`", rune(w[0])) {
		open = w[:1]
	}
	core := strings.TrimRight(w[len(open):], trailing)
	core = strings.TrimSuffix(core, "…")
	if _, long := cutHead(core); !long {
		return w
	}
	tail := w[len(strings.TrimRight(w, trailing)):]
	if len(tail) > 4 {
		tail = tail[len(tail)-4:]
	}
	head, _ := cutHead(w)
	size := sizeNote(strings.TrimRight(w[len(open):], trailing))
	closing := ""
	if open != "" && strings.HasPrefix(tail, open) {
		closing, tail = open, tail[1:]
	}
	return head + "…" + closing + " " + size + tail
}

// trailing is the punctuation that may end a word without being part of
// what it names: a closing quote or bracket, a colon before a reason.
const trailing = "\"'`)]:;,."
