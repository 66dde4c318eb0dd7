package keystore

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/runfile"
	"github.com/abx-dev/abx/internal/shell"
)

// File keeps each profile's key in a file of its own, Dir/NAME, mode 0600
// in a directory of mode 0700. A key file others may read is refused, as
// ssh refuses such a private key: the key may be known already.
type File struct {
	Dir string
}

// Path is where the profile's key is kept.
func (s *File) Path(profile string) string { return filepath.Join(s.Dir, profile) }

// Get reads the profile's key.
func (s *File) Get(profile string) (string, error) {
	path := s.Path(profile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if runfile.ModesMatter && info.Mode().Perm()&0o077 != 0 {
		return "", abxerr.New(abxerr.InvalidConfig, "the key file %s is not private: others may read it (mode %04o)", path, info.Mode().Perm()).
			WithHint("run: chmod 600 %s (and think whether the key should be replaced)", shell.Quote(path))
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// Set writes the profile's key whole and at once (runfile.WritePrivate:
// a temporary file of mode 0600 renamed over the old one).
func (s *File) Set(profile, key string) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	return runfile.WritePrivate(s.Path(profile), []byte(key+"\n"))
}

// Delete removes the profile's key file.
func (s *File) Delete(profile string) error {
	err := os.Remove(s.Path(profile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
