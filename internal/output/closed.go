package output

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/abx-dev/abx/internal/abxerr"
)

// The reader of abx's output can go away before abx is done: the end of
// a pipe closes when its reader exits ('abx exec ID -- yes | head -2').
// A stream command catches SIGPIPE so that its write then fails with
// EPIPE rather than kill abx, and stops its remote work before it exits
// (docs/exit-codes.md); that failure is abxerr.Closed, which nothing is
// printed for.

// closed is err, or abxerr.Closed when it is a write's EPIPE: a Stream
// writes only to abx's own stdout and stderr, so the reader went away.
func closed(err error) error {
	if err != nil && !Closed(err) && errors.Is(err, syscall.EPIPE) {
		return abxerr.Closed(err)
	}
	return err
}

// Closed reports whether err says that the reader of abx's output went
// away: abxerr.Closed, or a write to this process's stdout or stderr that
// failed with EPIPE (a command that wrote there itself, not through a
// Stream). A connection's EPIPE is a socket's, and not this.
func Closed(err error) bool {
	if e := (*abxerr.Error)(nil); errors.As(err, &e) && e.Code == abxerr.OutputClosed {
		return true
	}
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "write" && errors.Is(pe.Err, syscall.EPIPE) &&
		(pe.Path == os.Stdout.Name() || pe.Path == os.Stderr.Name())
}
