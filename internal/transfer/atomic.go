// Package transfer moves files between this machine and a sandbox: single
// files and trees, streamed, written atomically on this side. It knows
// nothing of the command line.
package transfer

import (
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/abx-dev/abx/internal/abxerr"
)

// WriteFile fills a local file through a temporary file in the same
// directory, renamed into place at the end: a reader never sees half a
// file, and an error leaves nothing behind. The file has an ordinary
// file's mode (0644).
func WriteFile(local string, fill func(io.Writer) error) error {
	return writeFile(local, Keep, fill)
}

// writeFile is WriteFile with the bits perm gives (createAtomic).
func writeFile(local string, perm Perm, fill func(io.Writer) error) error {
	f, err := createAtomic(local, perm)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// AtomicFile is a local file being written: a temporary file in the same
// directory until Commit renames it into place. A reader never sees half a
// file, and Abort (or a failed Commit) leaves nothing behind.
type AtomicFile struct {
	Path string // where it goes
	tmp  *os.File
}

// CreateAtomic starts writing the file at path, with an ordinary file's
// mode (0644).
func CreateAtomic(path string) (*AtomicFile, error) { return createAtomic(path, Keep) }

// createAtomic starts writing the file at path with the bits perm gives,
// cut by the umask as cp's are, or without any an ordinary file's mode.
func createAtomic(path string, perm Perm) (*AtomicFile, error) {
	var tmp *os.File
	var err error
	if perm.set {
		tmp, err = os.OpenFile(tempLocal(path), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm.bits)
	} else {
		tmp, err = os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".abx-*")
	}
	if err != nil {
		return nil, writeError(path, err).
			WithHint("choose a destination in a directory you can write to; nothing was written")
	}
	if !perm.set {
		// CreateTemp makes the file private; give it an ordinary file's mode.
		if err := tmp.Chmod(0o644); err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
			return nil, writeError(path, err)
		}
	}
	return &AtomicFile{Path: path, tmp: tmp}, nil
}

// tempLocal is a temporary name beside the local file p: hidden, unique.
func tempLocal(p string) string {
	return filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".abx-"+rand.Text())
}

func (f *AtomicFile) Write(b []byte) (int, error) {
	n, err := f.tmp.Write(b)
	if err != nil {
		return n, writeError(f.Path, err)
	}
	return n, nil
}

// ReadFrom lets io.Copy use the file's own (copy_file_range, splice)
// where it can, as it would with the file itself.
func (f *AtomicFile) ReadFrom(r io.Reader) (int64, error) { return f.tmp.ReadFrom(r) }

// Commit puts the whole file in its place.
func (f *AtomicFile) Commit() error {
	err := f.tmp.Close()
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.Path)
	}
	if err != nil {
		_ = os.Remove(f.tmp.Name())
		return writeError(f.Path, err)
	}
	return nil
}

// Abort drops what was written.
func (f *AtomicFile) Abort() {
	_ = f.tmp.Close()
	_ = os.Remove(f.tmp.Name())
}

func writeError(path string, err error) *abxerr.Error {
	return abxerr.New(abxerr.InvalidInput, "cannot write %s: %v", path, LocalReason(err))
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
