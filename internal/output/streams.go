// Package output turns plain Go values into what people and programs read:
// tables that adapt to the terminal, JSON, and errors. It knows nothing of
// HTTP or of any provider.
package output

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/abx-dev/abx/internal/secrets"
)

// Streams are abx's standard streams and what is known about them.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool
	// Color is true when stdout may carry ANSI colour: a terminal, no
	// NO_COLOR, TERM not dumb and no --no-color.
	Color bool
	// ErrColor is the same for stderr: tracebacks keep their colours only
	// on a terminal.
	ErrColor bool
	// Width is the terminal's width in columns when stdout is one, which
	// tables are fitted to; 0 when unknown (no fitting).
	Width int
	// Now is the clock relative times are computed from.
	Now func() time.Time
	// Secrets are redacted from everything printed but the data streams
	// (exec output, files read, run-code output).
	Secrets *secrets.Set

	// styled holds the cells abx coloured itself, which a table passes
	// through while it escapes every other cell's controls.
	styled sync.Map
	// debug is SafeErrOut's writer, made once.
	debugOnce sync.Once
	debug     io.Writer
}

// System returns the process's streams, probing which are terminals.
func System() *Streams {
	s := &Streams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		Now:       time.Now,
		Secrets:   &secrets.Set{},
	}
	if s.StdoutTTY {
		s.Width = terminalWidth(int(os.Stdout.Fd()), os.Getenv)
	}
	s.Color = s.StdoutTTY && colorAllowed(os.Getenv)
	s.ErrColor = s.StderrTTY && colorAllowed(os.Getenv)
	return s
}

// terminalWidth is the terminal's width, or else $COLUMNS, or else 0.
func terminalWidth(fd int, getenv func(string) string) int {
	if w, _, err := term.GetSize(fd); err == nil && w > 0 {
		return w
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// colorAllowed applies the NO_COLOR (any non-empty value) and TERM=dumb
// conventions.
func colorAllowed(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && !strings.EqualFold(getenv("TERM"), "dumb")
}

// Test returns streams writing to buffers, as a pipe unless tty is true.
func Test(tty bool) (s *Streams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	s = &Streams{
		In: in, Out: out, ErrOut: errOut,
		StdinTTY: tty, StdoutTTY: tty, StderrTTY: tty, Color: tty, ErrColor: tty,
		Now:     func() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) },
		Secrets: &secrets.Set{},
	}
	return s, in, out, errOut
}

// DisableColor is what --no-color does.
func (s *Streams) DisableColor() { s.Color, s.ErrColor = false, false }

// Safe is text from a server or a sandbox as abx may print it in a
// message: secrets redacted, controls escaped (see Escape).
func (s *Streams) Safe(text string) string { return Escape(s.Secrets.Redact(text)) }

// SafeErrOut is stderr for the lines abx writes as things happen, with
// server data in them: the --debug trace and warnings. Secrets are redacted
// and controls escaped line by line; every writer of such lines shares it,
// so that their lines stay whole.
func (s *Streams) SafeErrOut() io.Writer {
	s.debugOnce.Do(func() { s.debug = &redactWriter{s: s} })
	return s.debug
}
