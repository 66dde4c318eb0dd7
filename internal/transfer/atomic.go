// Package transfer moves files between this machine and a sandbox: single
// files and trees, streamed, written atomically on this side. It knows
// nothing of the command line.
package transfer

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/abx-dev/abx/internal/abxerr"
)

// WriteFile fills a local file through a temporary file in the same
// directory, renamed into place at the end: a reader never sees half a
// file, and an error leaves nothing behind.
func WriteFile(local string, fill func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(local), "."+filepath.Base(local)+".abx-*")
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, LocalReason(err)).
			WithHint("choose a destination in a directory you can write to; nothing was written")
	}
	// CreateTemp makes the file private; give it an ordinary file's mode.
	err = tmp.Chmod(0o644)
	if err == nil {
		err = fill(tmp)
	}
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, cerr)
	}
	if err == nil {
		if rerr := os.Rename(tmp.Name(), local); rerr != nil {
			err = abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, LocalReason(rerr))
		}
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// CheckWritable refuses, before anything is sent, a destination WriteFile
// could not fill: one in a directory that does not exist, or a directory
// itself (the renamed file cannot replace it).
func CheckWritable(local string) error {
	dir, err := os.Stat(filepath.Dir(local))
	if err == nil && !dir.IsDir() {
		err = errors.New("not a directory")
	}
	if err == nil {
		if st, serr := os.Stat(local); serr == nil && st.IsDir() {
			err = errors.New("is a directory")
		}
	}
	if err != nil {
		return abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", local, LocalReason(err)).
			WithHint("choose a destination in a directory you can write to; nothing was written")
	}
	return nil
}

// LocalReason is the reason of a local file error without the path the
// message already names ("permission denied", "no such file or directory").
func LocalReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
