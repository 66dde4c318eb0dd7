package code

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/codeinterp"
	"github.com/abx-dev/abx/internal/transfer"
)

// spillAt is how much of a value the JSON output prints is held in memory;
// past it the value goes to a temporary file until it is printed.
const spillAt = 64 << 10

// spill holds a value the JSON output prints, unescaped: in memory while
// it is short, else in a temporary file, so that an image costs disk until
// it is printed, not memory.
type spill struct {
	dir  string // of the temporary file; "" for the system's
	buf  []byte
	f    *os.File
	path string // the file's, when it could not be removed while open
}

func (s *spill) Write(p []byte) (int, error) {
	if s.f == nil && len(s.buf)+len(p) <= spillAt {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, "abx-run-code-*")
		if err != nil {
			return 0, spillError(err)
		}
		// Removed at once where an open file can be, so that nothing is
		// left behind however abx ends.
		if os.Remove(f.Name()) != nil {
			s.path = f.Name()
		}
		s.f = f
		if _, err := f.Write(s.buf); err != nil {
			return 0, spillError(err)
		}
		s.buf = nil
	}
	if _, err := s.f.Write(p); err != nil {
		return 0, spillError(err)
	}
	return len(p), nil
}

func spillError(err error) error {
	return abxerr.New(abxerr.InvalidInput, "cannot keep a result until it is printed: %v", transfer.LocalReason(err)).
		WithHint("with -o json and --stream, abx keeps large results in the temporary directory (TMPDIR) until it prints them")
}

// writeJSON writes the value as the contents of a JSON string, escaped as
// encoding/json escapes it (HTML left alone, as output.WriteJSON does).
func (s *spill) writeJSON(w io.Writer) error {
	if s.f == nil {
		return writeJSONString(w, bytes.NewReader(s.buf))
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return spillError(err)
	}
	return writeJSONString(w, s.f)
}

func (s *spill) close() {
	if s.f != nil {
		_ = s.f.Close()
		if s.path != "" {
			_ = os.Remove(s.path)
		}
	}
	*s = spill{}
}

// writeJSONString copies r to w escaped as the inside of a JSON string, a
// piece at a time. The pieces end on whole characters, and those that need
// escaping go through encoding/json, so that the result is byte for byte
// what encoding the whole string would give.
func writeJSONString(w io.Writer, r io.Reader) error {
	buf := make([]byte, 64<<10)
	var esc bytes.Buffer
	enc := json.NewEncoder(&esc)
	enc.SetEscapeHTML(false)
	carry := 0
	for {
		n, err := io.ReadFull(r, buf[carry:])
		end := carry + n
		last := err != nil
		if last && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return spillError(err)
		}
		cut := end
		if !last {
			cut = wholeRunes(buf[:end])
		}
		piece := buf[:cut]
		if needsEscape(piece) {
			esc.Reset()
			if err := enc.Encode(string(piece)); err != nil {
				return err
			}
			// Encode wrote the piece quoted, and a newline.
			piece = esc.Bytes()[1 : esc.Len()-2]
		}
		if _, err := w.Write(piece); err != nil {
			return err
		}
		if last {
			return nil
		}
		carry = copy(buf, buf[cut:end])
	}
}

// wholeRunes is the length of b without a character cut at its end.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// needsEscape is false for bytes encoding/json leaves as they are: plain
// ASCII, which is what base64 is.
func needsEscape(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		quote, backslash := w^('"'*ones), w^('\\'*ones)
		if (w|(w-' '*ones)&^w|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

// spilledJSON is the JSON output's part of the sink: values that went to
// spills stand in the printed objects as placeholders, which are replaced
// by the spills' contents as they are written out.
type spilledJSON struct {
	spills []*spill
	mark   string // the placeholders' prefix, unguessable by the code
}

// hold takes the spill of a format of r for printing: a short value goes
// back into r, a long one is replaced by a placeholder.
func (j *spilledJSON) hold(r *codeinterp.Result, name string, sp *spill) {
	if sp.f == nil {
		r.SetFormat(name, string(sp.buf))
		sp.close()
		return
	}
	if j.mark == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		j.mark = "abx-spilled-" + hex.EncodeToString(b[:]) + "-"
	}
	r.SetFormat(name, j.mark+strconv.Itoa(len(j.spills)))
	j.spills = append(j.spills, sp)
}

// print encodes v with encode, then writes it to w with the spills'
// contents in place of their placeholders.
func (j *spilledJSON) print(w io.Writer, v any, encode func(io.Writer, any) error) error {
	if len(j.spills) == 0 {
		return encode(w, v)
	}
	var buf bytes.Buffer
	if err := encode(&buf, v); err != nil {
		return err
	}
	b := buf.Bytes()
	quoted := []byte(`"` + j.mark)
	for {
		i := bytes.Index(b, quoted)
		if i < 0 {
			break
		}
		rest := b[i+len(quoted):]
		end := bytes.IndexByte(rest, '"')
		k, err := strconv.Atoi(string(rest[:max(end, 0)]))
		if end < 0 || err != nil || k >= len(j.spills) {
			return fmt.Errorf("a placeholder of the JSON output is broken: %.60q", b[i:])
		}
		if _, err := w.Write(b[:i+1]); err != nil {
			return err
		}
		if err := j.spills[k].writeJSON(w); err != nil {
			return err
		}
		b = rest[end:] // from the closing quote
	}
	_, err := w.Write(b)
	return err
}

func (j *spilledJSON) close() {
	for _, sp := range j.spills {
		sp.close()
	}
	j.spills = nil
}

// base64Writer decodes base64 text written to it in pieces, as
// base64.StdEncoding.DecodeString decodes it whole after white space is
// trimmed from its ends: line breaks are skipped, padding ends the data.
type base64Writer struct {
	w      io.Writer
	name   string // the format's, for errors
	buf    []byte // text not decoded yet: less than a quantum, or spaces that may end it
	out    []byte
	read   int  // text decoded so far, line breaks not counted
	began  bool // a character other than white space has come
	padded bool // a quantum with padding was decoded: no more may come
}

func newBase64Writer(w io.Writer, name string) *base64Writer {
	return &base64Writer{w: w, name: name}
}

func (d *base64Writer) Write(p []byte) (int, error) {
	n := len(p)
	if !d.began {
		p = bytes.TrimLeft(p, " \t\r\n\v\f")
		d.began = len(p) > 0
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			i = len(p)
		}
		if j := bytes.IndexByte(p[:i], '\r'); j >= 0 {
			i = j
		}
		d.buf = append(d.buf, p[:i]...)
		p = p[min(i+1, len(p)):]
	}
	// Spaces at the end may be the end of the text, trimmed; hold them.
	text := bytes.TrimRight(d.buf, " \t\v\f")
	if err := d.decode(len(text) / 4 * 4); err != nil {
		return 0, err
	}
	return n, nil
}

// decode decodes the first k bytes of buf, a whole number of quanta.
func (d *base64Writer) decode(k int) error {
	if k == 0 {
		return nil
	}
	if d.padded {
		return d.corrupt(0)
	}
	if need := base64.StdEncoding.DecodedLen(k); cap(d.out) < need {
		d.out = make([]byte, need)
	}
	d.out = d.out[:cap(d.out)]
	n, err := base64.StdEncoding.Decode(d.out, d.buf[:k])
	if err != nil {
		var at base64.CorruptInputError
		if errors.As(err, &at) {
			return d.corrupt(int(at))
		}
		return d.corrupt(0)
	}
	if _, err := d.w.Write(d.out[:n]); err != nil {
		return err
	}
	d.padded = bytes.IndexByte(d.buf[k-4:k], '=') >= 0
	d.read += k
	d.buf = append(d.buf[:0], d.buf[k:]...)
	return nil
}

// Close decodes what is left: the text must end on a whole quantum.
func (d *base64Writer) Close() error {
	d.buf = bytes.TrimRight(d.buf, " \t\v\f")
	if len(d.buf)%4 != 0 {
		return d.corrupt(len(d.buf) / 4 * 4)
	}
	return d.decode(len(d.buf))
}

func (d *base64Writer) corrupt(at int) error {
	return abxerr.New(abxerr.BadResponse, "its %s is not base64: %v", d.name, base64.CorruptInputError(d.read+at))
}
