package process

import (
	"bytes"
	"io"
)

// maxLine bounds the line a screenLine keeps: a prompt and what was typed
// after it fit; the screen of a full-screen program, drawn without line
// feeds, does not, and is not drawn again.
const maxLine = 4 << 10

// screenLine passes a terminal session's screen on as it comes, and keeps
// its last line so far: the bytes after the last line feed (the prompt,
// and the keys echoed after it, with the sequences that drew them). A
// note of abx's that takes lines of its own in the middle of a session
// leaves the cursor under that line; drawing it again there puts the
// prompt back before what is typed next.
//
// Its writes and redraws come from the one goroutine that follows the
// session's stream (envd's events and the reconnections, in order).
type screenLine struct {
	w    io.Writer
	line []byte
	over bool // the line outgrew maxLine: it is not drawn again
}

func newScreenLine(w io.Writer) *screenLine {
	return &screenLine{w: w, line: make([]byte, 0, maxLine)}
}

func (s *screenLine) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.keep(p[:n])
	return n, err
}

func (s *screenLine) keep(p []byte) {
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		s.line, s.over, p = s.line[:0], false, p[i+1:]
	}
	if s.over {
		return
	}
	if len(s.line)+len(p) > maxLine {
		s.line, s.over = s.line[:0], true
		return
	}
	s.line = append(s.line, p...)
}

// redraw draws the last line again, where the cursor is.
func (s *screenLine) redraw() error {
	if s.over || len(s.line) == 0 {
		return nil
	}
	_, err := s.w.Write(s.line)
	return err
}
