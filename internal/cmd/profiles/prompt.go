package profiles

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/abx-dev/abx/internal/abxerr"
)

// readHidden prompts on w and reads one line from the terminal in with
// its echo off. Echo goes off before the prompt shows, so a key typed or
// pasted the moment the prompt appears is never shown; the terminal's
// mode comes back however the read ends, Ctrl-C included.
func readHidden(ctx context.Context, in *os.File, w io.Writer, prompt string) (string, error) {
	restore, err := echoOff(in)
	if err != nil {
		return "", abxerr.New(abxerr.InvalidInput, "cannot turn the terminal's echo off: %v", err).
			WithHint("pipe the key in with --with-key, or give --api-key-file PATH")
	}
	defer restore()
	_, _ = fmt.Fprint(w, prompt)
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 1)
		for b.Len() < 64<<10 {
			n, err := in.Read(buf)
			if n == 1 {
				if buf[0] == '\n' || buf[0] == '\r' {
					break
				}
				b.WriteByte(buf[0])
			}
			if err != nil {
				got <- line{b.String(), err}
				return
			}
		}
		got <- line{b.String(), nil}
	}()
	select {
	case l := <-got:
		_, _ = fmt.Fprintln(w)
		if l.err != nil && !errors.Is(l.err, io.EOF) {
			return "", abxerr.New(abxerr.InvalidInput, "cannot read the key from the terminal: %v", l.err)
		}
		return l.s, nil
	case <-ctx.Done():
		_, _ = fmt.Fprintln(w)
		return "", abxerr.From(ctx.Err())
	}
}
