package output

import (
	"strings"
	"unicode/utf8"
)

// Escape makes text that came from a server or a sandbox safe to show on a
// terminal: C0 controls (ESC, CR, LF and TAB among them), DEL, C1 controls,
// the bidirectional overrides that reorder what is shown, and bytes that are
// not UTF-8 are written as Go escapes (\x1b, \n, \t, \u009b, \xff). They are
// shown rather than dropped, so that an odd name looks odd instead of passing
// for another one, and a tab can never add a column to piped TSV.
//
// A backslash is left alone: Escape(Escape(s)) == Escape(s), so text that
// goes through two printing paths is escaped once. The price is that a
// literal `\x1b` and an escaped ESC look the same; -o json tells them apart.
func Escape(s string) string {
	return escape(s, "")
}

// escapeKeepNewlines is Escape for multi-line text whose line breaks are
// abx's own, as the --debug trace's.
func escapeKeepNewlines(s string) string {
	return escape(s, "\n")
}

// escapeKeepLayout is Escape for text that a terminal is shown as it is,
// lines and columns included: the strings --jq prints.
func escapeKeepLayout(s string) string {
	return escape(s, "\n\t")
}

// escape escapes what Escape does but the controls in keep.
func escape(s string, keep string) string {
	i := firstUnsafe(s, keep)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, uint32(s[i]), 2)
		case unsafeRune(r) && !kept(r, keep):
			writeRuneEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte Escape changes, or -1; most
// text has none and is returned as it is.
func firstUnsafe(s string, keep string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !kept(rune(c), keep) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// kept reports whether r is one of the ASCII controls of keep.
func kept(r rune, keep string) bool {
	return r < utf8.RuneSelf && strings.IndexByte(keep, byte(r)) >= 0
}

func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		// Bidirectional marks and overrides: they make a name read as
		// another (a "Trojan Source" file name).
		return true
	}
	return false
}

func writeRuneEscape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		if r < utf8.RuneSelf {
			writeHex(b, `\x`, uint32(r), 2)
		} else {
			writeHex(b, `\u`, uint32(r), 4)
		}
	}
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(v>>uint(shift))&0xf])
	}
}
