package code

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"

	"github.com/abx-dev/abx/internal/abxerr"
)

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
