package output

import (
	"errors"
	"io"
	"unicode/utf8"
)

// ErrNotText is TextOnly's refusal of bytes that are not text.
var ErrNotText = errors.New("not text")

// sniffLen is how much TextOnly holds back before writing anything: the
// first bytes tell a binary file from text, as curl's rule does.
const sniffLen = 8 << 10

// TextOnly writes to a terminal only what is text, for a data stream a
// person did not ask to see raw (files read): UTF-8 without controls but
// tab, newline and carriage return. An escape sequence is a control: it
// could retitle, clear or reprogram the terminal. The first sniffLen
// bytes are held until they are all there (or the stream ends, Flush), so
// a file that is not text from its start writes nothing; after them each
// write is checked before it is passed on, and the first that is not text
// stops the stream with ErrNotText, none of it written.
type TextOnly struct {
	w    io.Writer
	held []byte // before the first sniffLen bytes are known
	sent bool   // the held bytes were text, and passed on
	tail []byte // the start of a character cut at the end of the last write
}

// NewTextOnly guards w, a terminal.
func NewTextOnly(w io.Writer) *TextOnly { return &TextOnly{w: w} }

func (t *TextOnly) Write(p []byte) (int, error) {
	if !t.sent {
		t.held = append(t.held, p...)
		if len(t.held) < sniffLen {
			return len(p), nil
		}
		return len(p), t.release(false)
	}
	if !t.text(p) {
		return 0, ErrNotText
	}
	if _, err := t.w.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held, at the end of the stream: a short file.
// A stream that ends inside a character is not text.
func (t *TextOnly) Flush() error {
	if t.sent {
		if len(t.tail) > 0 {
			return ErrNotText
		}
		return nil
	}
	return t.release(true)
}

// release checks the held bytes and passes them on; at the end, a
// character cut at their end refuses them too.
func (t *TextOnly) release(end bool) error {
	held := t.held
	t.held, t.sent = nil, true
	if !t.text(held) || (end && len(t.tail) > 0) {
		return ErrNotText
	}
	_, err := t.w.Write(held)
	return err
}

// text reports whether p, after the tail of the last write, is text; a
// character cut at p's end is kept as the next tail.
func (t *TextOnly) text(p []byte) bool {
	b := p
	if len(t.tail) > 0 {
		b = append(append(make([]byte, 0, len(t.tail)+len(p)), t.tail...), p...)
	}
	t.tail = nil
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		if !utf8.FullRune(b[i:]) {
			t.tail = append([]byte(nil), b[i:]...)
			return true
		}
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r <= 0x9f) {
			return false
		}
		i += size
	}
	return true
}
