package codeinterp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// A reply line is decoded while its bytes arrive instead of being read
// whole first: a result carries its images base64-encoded on one line, and
// holding the line, then its decoded string, then the saved bytes would
// cost several times the image. The string values of a result's formats go
// to a Spool piece by piece as they are unescaped; the rest of a line is
// small and held, up to maxHeld. Anything that is not a plain string of a
// known field is captured raw and left to encoding/json, so that what is
// accepted and how it decodes stay encoding/json's.

// Spool takes the string values of results' formats while their lines are
// read, so that none has to be held whole.
type Spool interface {
	// Format returns where the value of one of a result's formats goes
	// (f.Data is empty), or nil to keep it in the Result. The value comes
	// unescaped: the base64 formats as their base64 text. It is asked when
	// the value begins: the line may still fail, or name the format again.
	Format(f Format) io.Writer
	// Drop says that what went to the writers since the last result event
	// belongs to no result: its line failed, or was not a result after all.
	Drop()
}

// decoder reads the reply one line at a time.
type decoder struct {
	r       *bufio.Reader
	spool   Spool
	maxLine int // the most bytes a line may have, its newline not counted
	maxHeld int // the most of them that may be held: all but spooled values

	n       int  // bytes of the current line read so far
	spooled int  // of which went to the spool
	used    bool // the spool was given a value of this line

	out *bufio.Writer     // in front of the spool's writer
	str bytes.Buffer      // the held string being read
	raw []byte            // the raw value being read
	enc [utf8.UTFMax]byte // a character unescaped
}

// The ways a line can fail besides the spool's writers' own errors.
type (
	// syntaxError is a line that is not the JSON object expected.
	syntaxError struct{ msg string }
	// tooLongError is a line past one of the limits.
	tooLongError struct{ limit int }
	// cutError is a failure to read the reply: the line was cut.
	cutError struct{ err error }
)

func (e *syntaxError) Error() string { return e.msg }
func (e *tooLongError) Error() string {
	return fmt.Sprintf("line too long (the limit is %s)", size(e.limit))
}
func (e *cutError) Error() string { return e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

func syntaxf(format string, args ...any) error {
	return &syntaxError{fmt.Sprintf(format, args...)}
}

func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// next decodes the next line into l. It returns false for a line without
// an object (blank, or null), which is skipped.
func (d *decoder) next(l *line) (bool, error) {
	d.n, d.spooled, d.used = 0, 0, false
	c, err := d.skipSpace()
	switch {
	case err != nil:
		return false, err
	case c == '\n':
		_, _ = d.r.Discard(1)
		return false, nil
	case c != '{':
		// Not an object: encoding/json says why, or skips a null.
		raw, eol, err := d.rest()
		if err != nil {
			return false, err
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if !eol {
				return false, &cutError{io.EOF}
			}
			return false, nil // blank, by Unicode's white space
		}
		if jerr := json.Unmarshal(raw, l); jerr != nil {
			if !eol {
				return false, &cutError{io.EOF}
			}
			return false, &syntaxError{jerr.Error()}
		}
		return true, nil
	}
	if err := d.advance(1); err != nil {
		return false, err
	}
	if err := d.object(l); err != nil {
		return false, err
	}
	c, err = d.skipSpace()
	switch {
	case errors.Is(err, io.EOF):
		return true, nil // the last line needs no newline
	case err != nil:
		return false, err
	case c != '\n':
		return false, syntaxf("invalid character %q after the object", c)
	}
	_, _ = d.r.Discard(1)
	return true, nil
}

func (d *decoder) object(l *line) error {
	c, err := d.skipSpace()
	if err != nil {
		return err
	}
	if c == '}' {
		return d.advance(1)
	}
	for {
		if c != '"' {
			return syntaxf("invalid character %q looking for a key", c)
		}
		if err := d.advance(1); err != nil {
			return err
		}
		d.str.Reset()
		if err := d.string(&d.str, false); err != nil {
			return err
		}
		f := fieldNamed(d.str.Bytes())
		if c, err = d.skipSpace(); err != nil {
			return err
		}
		if c != ':' {
			return syntaxf("invalid character %q after a key", c)
		}
		if err := d.advance(1); err != nil {
			return err
		}
		if c, err = d.skipSpace(); err != nil {
			return err
		}
		if err := d.value(l, f, c); err != nil {
			return err
		}
		if c, err = d.skipSpace(); err != nil {
			return err
		}
		switch c {
		case ',':
			if err := d.advance(1); err != nil {
				return err
			}
			if c, err = d.skipSpace(); err != nil {
				return err
			}
		case '}':
			return d.advance(1)
		default:
			return syntaxf("invalid character %q after a value", c)
		}
	}
}

// value reads the value of field f (nil: a field abx does not know), whose
// first byte is c.
func (d *decoder) value(l *line, f *field, c byte) error {
	if f != nil && f.str != nil && c == '"' {
		if err := d.advance(1); err != nil {
			return err
		}
		if f.format && d.spool != nil && l.Type == "result" {
			if w := d.spool.Format(formatNamed(f.name)); w != nil {
				d.used = true
				*f.str(l) = ""
				v := &spooledValue{w: w}
				// Escapes come out a character at a time: gathered, so
				// that the writer sees pieces of a useful size.
				if d.out == nil {
					d.out = bufio.NewWriterSize(v, 32<<10)
				}
				d.out.Reset(v)
				err := d.string(d.out, true)
				if err == nil {
					err = d.out.Flush()
				}
				d.out.Reset(nil)
				if err != nil {
					return err
				}
				l.unspool(f.name)
				if v.present() {
					l.spooled = append(l.spooled, f.name)
				} else {
					// "" or "null": kept as sent, which Formats skips.
					*f.str(l) = string(v.head[:v.n])
				}
				return nil
			}
		}
		d.str.Reset()
		if err := d.string(&d.str, false); err != nil {
			return err
		}
		*f.str(l) = d.str.String()
		l.unspool(f.name)
		return nil
	}
	raw, err := d.rawValue()
	if err != nil {
		return err
	}
	var into any
	switch {
	case f == nil:
		if !json.Valid(raw) {
			return syntaxf("invalid value %.40q", raw)
		}
		return nil
	case f.str != nil:
		into = f.str(l)
	default:
		into = f.val(l)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return &syntaxError{fmt.Sprintf("%s: %v", f.name, err)}
	}
	return nil
}

// spooledValue passes a value to the spool's writer, noting whether it is
// one Result.Formats would list.
type spooledValue struct {
	w    io.Writer
	n    int
	head [4]byte
}

func (v *spooledValue) Write(p []byte) (int, error) {
	if v.n < len(v.head) {
		copy(v.head[v.n:], p)
	}
	v.n += len(p)
	return v.w.Write(p)
}

func (v *spooledValue) present() bool {
	return v.n > 0 && (v.n != 4 || string(v.head[:]) != "null")
}

// plain are the bytes that stand for themselves in a JSON string.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// string reads the rest of a string whose opening quote was read and writes
// it to w unescaped, as encoding/json unescapes it: invalid UTF-8 and lone
// surrogates become U+FFFD. Bytes of spooled strings are not held.
func (d *decoder) string(w io.Writer, spooled bool) error {
	var high rune // a high surrogate, waiting for its low half
	put := func(r rune) error {
		_, err := w.Write(d.enc[:utf8.EncodeRune(d.enc[:], r)])
		return err
	}
	for {
		b, err := d.buffered()
		if err != nil {
			return err
		}
		i := scanPlain(b)
		if i > 0 {
			if high != 0 {
				if err := put(utf8.RuneError); err != nil {
					return err
				}
				high = 0
			}
			if _, err := w.Write(b[:i]); err != nil {
				return err
			}
			if err := d.consume(i, spooled); err != nil {
				return err
			}
			continue
		}
		switch c := b[0]; {
		case c == '"':
			if high != 0 {
				if err := put(utf8.RuneError); err != nil {
					return err
				}
			}
			return d.consume(1, spooled)
		case c == '\\':
			r, n, err := d.escape()
			if err != nil {
				return err
			}
			if err := d.consume(n, spooled); err != nil {
				return err
			}
			switch {
			case high != 0 && 0xdc00 <= r && r < 0xe000:
				r, high = 0x10000+(high-0xd800)<<10+(r-0xdc00), 0
			case high != 0:
				if err := put(utf8.RuneError); err != nil {
					return err
				}
				high = 0
			}
			switch {
			case 0xd800 <= r && r < 0xdc00:
				high = r
				continue
			case 0xdc00 <= r && r < 0xe000:
				r = utf8.RuneError
			}
			if err := put(r); err != nil {
				return err
			}
		case c < ' ':
			if c == '\n' {
				return syntaxf("the line ended inside a string")
			}
			return syntaxf("invalid character %q in a string", c)
		default:
			if !utf8.FullRune(b) {
				// A character cut by the end of what has arrived: wait
				// for the rest of it (a newline would complete it as
				// invalid, so this never reads past the line).
				if _, err := d.r.Peek(len(b) + 1); err != nil {
					return &cutError{err}
				}
				continue
			}
			// Not UTF-8 (scanPlain takes whole valid characters).
			if high != 0 {
				if err := put(utf8.RuneError); err != nil {
					return err
				}
				high = 0
			}
			if err := put(utf8.RuneError); err != nil {
				return err
			}
			if err := d.consume(1, spooled); err != nil {
				return err
			}
		}
	}
}

// scanPlain returns how many bytes at the start of b need no unescaping:
// plain ASCII and whole, valid UTF-8 characters.
func scanPlain(b []byte) int {
	i := plainWords(b)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if !plain[c] {
				return i
			}
			i++
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return i
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return i
}

// plainWords returns how many bytes at the start of b, eight at a time,
// are plain ASCII: the bulk of a base64 image, checked a word at a time.
func plainWords(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		quote, backslash := w^('"'*ones), w^('\\'*ones)
		if (w|(w-' '*ones)&^w|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0 {
			break // a byte that is not ASCII, a control, '"' or '\\'
		}
	}
	return i
}

// escape reads the escape at the head of the buffer without consuming it,
// and returns the character it stands for and its length. It looks no
// further than the escape's own bytes, so a line that ends early fails
// rather than waits.
func (d *decoder) escape() (rune, int, error) {
	b, err := d.r.Peek(2)
	if err != nil {
		return 0, 0, &cutError{err}
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		var r rune
		for k := 2; k < 6; k++ {
			if b, err = d.r.Peek(k + 1); err != nil {
				return 0, 0, &cutError{err}
			}
			h := unhex(b[k])
			if h < 0 {
				return 0, 0, syntaxf("invalid character %q in a \\u escape", b[k])
			}
			r = r<<4 | h
		}
		return r, 6, nil
	}
	return 0, 0, syntaxf("invalid escape %q in a string", b[:2])
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// rawValue captures the value that begins at the head of the buffer as it
// was sent, for encoding/json to check and decode: a string, an object or
// array to its closing bracket, or a bare word to the next delimiter.
func (d *decoder) rawValue() ([]byte, error) {
	d.raw = d.raw[:0]
	depth, inString, escaped := 0, false, false
	for {
		b, err := d.buffered()
		if err != nil {
			return nil, err
		}
		i, done := 0, false
	scan:
		for ; i < len(b); i++ {
			c := b[i]
			switch {
			case c == '\n':
				// The line ended inside the value.
				done = true
				break scan
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					if depth == 0 {
						i++
						done = true
						break scan
					}
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth == 0 {
					done = true
					break scan
				}
				if depth--; depth == 0 {
					i++
					done = true
					break scan
				}
			case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\r'):
				done = true
				break scan
			}
		}
		d.raw = append(d.raw, b[:i]...)
		if err := d.consume(i, false); err != nil {
			return nil, err
		}
		if done {
			return d.raw, nil
		}
	}
}

// rest reads what is left of the line, held; eol is false when the reply
// ended before a newline.
func (d *decoder) rest() (raw []byte, eol bool, err error) {
	d.raw = d.raw[:0]
	for {
		b, err := d.buffered()
		if errors.Is(err, io.EOF) {
			return d.raw, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		i := bytes.IndexByte(b, '\n')
		if i >= 0 {
			d.raw = append(d.raw, b[:i]...)
			if err := d.consume(i, false); err != nil {
				return nil, false, err
			}
			_, _ = d.r.Discard(1)
			return d.raw, true, nil
		}
		d.raw = append(d.raw, b...)
		if err := d.consume(len(b), false); err != nil {
			return nil, false, err
		}
	}
}

// skipSpace skips JSON's white space but the newline, which ends the line,
// and returns the byte after it, unread.
func (d *decoder) skipSpace() (byte, error) {
	for {
		b, err := d.r.Peek(1)
		if err != nil {
			return 0, &cutError{err}
		}
		switch b[0] {
		case ' ', '\t', '\r':
			if err := d.advance(1); err != nil {
				return 0, err
			}
		default:
			return b[0], nil
		}
	}
}

// buffered returns what has arrived and is not read yet, waiting for more
// only when nothing is there.
func (d *decoder) buffered() ([]byte, error) {
	if d.r.Buffered() == 0 {
		if _, err := d.r.Peek(1); err != nil {
			return nil, &cutError{err}
		}
	}
	b, _ := d.r.Peek(d.r.Buffered())
	return b, nil
}

func (d *decoder) advance(k int) error { return d.consume(k, false) }

// consume reads k bytes of the line, which is refused once it passes a
// limit: the line's, or the held part's.
func (d *decoder) consume(k int, spooled bool) error {
	_, _ = d.r.Discard(k)
	d.n += k
	if spooled {
		d.spooled += k
	}
	switch {
	case d.n > d.maxLine:
		return &tooLongError{d.maxLine}
	case d.n-d.spooled > d.maxHeld:
		return &tooLongError{d.maxHeld}
	}
	return nil
}

// field is a key of a reply line and where its value goes.
type field struct {
	name   string
	format bool                  // a format of a result: a Spool may take it
	str    func(l *line) *string // a string field
	val    func(l *line) any     // another one, decoded by encoding/json
}

// fields are the fields of line, as encoding/json would match them.
var fields = []field{
	{name: "type", str: func(l *line) *string { return &l.Type }},
	{name: "text", str: func(l *line) *string { return &l.Text }},
	{name: "timestamp", str: func(l *line) *string { return &l.Timestamp }},
	{name: "name", str: func(l *line) *string { return &l.Name }},
	{name: "value", str: func(l *line) *string { return &l.Value }},
	{name: "traceback", str: func(l *line) *string { return &l.Traceback }},
	{name: "execution_count", val: func(l *line) any { return &l.ExecutionCount }},
	{name: "is_main_result", val: func(l *line) any { return &l.IsMain }},
	{name: "isMainResult", val: func(l *line) any { return &l.IsMainResult }},
	{name: "html", format: true, str: func(l *line) *string { return &l.HTML }},
	{name: "markdown", format: true, str: func(l *line) *string { return &l.Markdown }},
	{name: "svg", format: true, str: func(l *line) *string { return &l.SVG }},
	{name: "png", format: true, str: func(l *line) *string { return &l.PNG }},
	{name: "jpeg", format: true, str: func(l *line) *string { return &l.JPEG }},
	{name: "pdf", format: true, str: func(l *line) *string { return &l.PDF }},
	{name: "latex", format: true, str: func(l *line) *string { return &l.LaTeX }},
	{name: "javascript", format: true, str: func(l *line) *string { return &l.JavaScript }},
	{name: "json", val: func(l *line) any { return &l.JSON }},
	{name: "data", val: func(l *line) any { return &l.Data }},
	{name: "chart", val: func(l *line) any { return &l.Chart }},
	{name: "extra", val: func(l *line) any { return &l.Extra }},
	{name: "files", val: func(l *line) any { return &l.Files }},
}

// fieldNamed finds the field of a key; encoding/json matches keys without
// regard to case.
func fieldNamed(key []byte) *field {
	for i := range fields {
		if string(key) == fields[i].name {
			return &fields[i]
		}
	}
	for i := range fields {
		if bytes.EqualFold(key, []byte(fields[i].name)) {
			return &fields[i]
		}
	}
	return nil
}
