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
// ssh refuses such a private key: the key may be known already; and so is
// one someone else could have written or could replace
// (runfile.CheckTrusted).
type File struct {
	Dir string
	// Home is the user's home, where the check of the directories above a
	// key file stops (runfile.Home); "" for up to /.
	Home string
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
	if err := runfile.CheckTrusted("the key file "+path, path, info, s.Home); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// Set writes the profile's key whole and at once (runfile.WritePrivate:
// a temporary file of mode 0600 renamed over the old one), and nothing
// where someone else could replace it.
func (s *File) Set(profile, key string) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	if err := runfile.CheckDirs("the key file "+s.Path(profile), s.Path(profile), s.Home); err != nil {
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
