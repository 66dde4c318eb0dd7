package output

import (
	"bytes"
	"crypto/rand"
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
)

// holdAt is how much of a held value is kept in memory; past it the value
// goes to a temporary file until it is printed.
const holdAt = 64 << 10

// Held keeps a long string of an event (an image run-code's result
// carries) until the event is printed, unescaped: in memory while it is
// short, else in a temporary file, so that a large value costs disk until
// it is printed, not memory. A stream hands one out only when it prints
// the values of its events (Stream.Hold).
type Held struct {
	dir  string // of the temporary file; "" for the system's
	buf  []byte
	f    *os.File
	path string // the file's, when it could not be removed while open
	// placed is its placeholder once Value gave one: the stream prints
	// the value there, and forgets it after.
	placed string
}

func (h *Held) Write(p []byte) (int, error) {
	if h.f == nil && len(h.buf)+len(p) <= holdAt {
		h.buf = append(h.buf, p...)
		return len(p), nil
	}
	if h.f == nil {
		f, err := os.CreateTemp(h.dir, "abx-held-*")
		if err != nil {
			return 0, holdError(err)
		}
		// Removed at once where an open file can be, so that nothing is
		// left behind however abx ends.
		if os.Remove(f.Name()) != nil {
			h.path = f.Name()
		}
		h.f = f
		if _, err := f.Write(h.buf); err != nil {
			return 0, holdError(err)
		}
		h.buf = nil
	}
	if _, err := h.f.Write(p); err != nil {
		return 0, holdError(err)
	}
	return len(p), nil
}

func holdError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return abxerr.New(abxerr.InvalidInput, "cannot keep a result until it is printed: %v", err).
		WithHint("with -o json and --stream, abx keeps large results in the temporary directory (TMPDIR) until it prints them")
}

// writeJSON writes the value as the contents of a JSON string, escaped as
// encoding/json escapes it (HTML left alone, as WriteJSON does).
func (h *Held) writeJSON(w io.Writer) error {
	if h.f == nil {
		return writeJSONString(w, bytes.NewReader(h.buf))
	}
	if _, err := h.f.Seek(0, io.SeekStart); err != nil {
		return holdError(err)
	}
	return writeJSONString(w, h.f)
}

// Close forgets the value. A stream closes the values it printed; the one
// who got a value from Hold closes it when it will not be printed.
func (h *Held) Close() {
	if h.f != nil {
		_ = h.f.Close()
		if h.path != "" {
			_ = os.Remove(h.path)
		}
	}
	*h = Held{dir: h.dir}
}

// writeJSONString copies r to w escaped as the inside of a JSON string, a
// piece at a time. The pieces end on whole characters, and those that need
// escaping go through encoding/json and escapeJSONControls, so that the
// result is byte for byte what WriteJSON gives the whole string.
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
			return holdError(err)
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
			piece = escapeJSONControls(esc.Bytes()[1 : esc.Len()-2])
		} else {
			piece = escapeJSONControls(piece)
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

// heldValues are the values of a stream's events that stand as
// placeholders in the printed JSON until they are written out in place.
type heldValues struct {
	dir    string // where long values are kept; "" for the system's
	placed []*Held
	mark   string // the placeholders' prefix, unguessable by a sandbox
}

// hold gives out a place to keep a value.
func (hv *heldValues) hold() *Held { return &Held{dir: hv.dir} }

// Value is what goes in the event's field in place of the held value: the
// value itself when it is short (and h is done with), else a placeholder
// the stream replaces with it when it prints the event.
func (hv *heldValues) value(h *Held) string {
	if h.f == nil {
		v := string(h.buf)
		h.Close()
		return v
	}
	if hv.mark == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		hv.mark = "abx-held-" + hex.EncodeToString(b[:]) + "-"
	}
	h.placed = hv.mark + strconv.Itoa(len(hv.placed))
	hv.placed = append(hv.placed, h)
	return h.placed
}

// print encodes v with encode, then writes it to w with the held values
// in place of their placeholders.
func (hv *heldValues) print(w io.Writer, v any, encode func(io.Writer, any) error) error {
	if len(hv.placed) == 0 {
		return encode(w, v)
	}
	var buf bytes.Buffer
	if err := encode(&buf, v); err != nil {
		return err
	}
	b := buf.Bytes()
	quoted := []byte(`"` + hv.mark)
	for {
		i := bytes.Index(b, quoted)
		if i < 0 {
			break
		}
		rest := b[i+len(quoted):]
		end := bytes.IndexByte(rest, '"')
		k, err := strconv.Atoi(string(rest[:max(end, 0)]))
		if end < 0 || err != nil || k >= len(hv.placed) {
			return fmt.Errorf("a placeholder of the JSON output is broken: %.60q", b[i:])
		}
		if _, err := w.Write(b[:i+1]); err != nil {
			return err
		}
		if err := hv.placed[k].writeJSON(w); err != nil {
			return err
		}
		b = rest[end:] // from the closing quote
	}
	_, err := w.Write(b)
	return err
}

// close forgets every value placed so far.
func (hv *heldValues) close() {
	for _, h := range hv.placed {
		h.Close()
	}
	hv.placed = nil
}
