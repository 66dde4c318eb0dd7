// Package runfile records a server abx runs in the background of a shell
// (the emulator, the local engine) in a file only the user can read, so
// that another abx process finds it: `abx emulator env`, `abx provider
// engine env`. Its private write (WritePrivate), ModesMatter and the rule
// of who may change a private file (CheckTrusted, CheckDirs) serve abx's
// other private files too: the config file and the key files.
package runfile

import (
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// ErrNotRunning says no live server is recorded.
var ErrNotRunning = errors.New("not running")

// Write records v at path, as WritePrivate does.
func Write(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return WritePrivate(path, b)
}

// WritePrivate writes data at path atomically (a reader sees the old file
// or the new one, and after a crash one or the other whole), in a file only
// the user can read (CreateTemp's 0600).
func WritePrivate(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Read fills v from path and returns ErrNotRunning when there is no record
// or the server it names is gone (alive reports on it).
func Read(path string, v any, alive func() bool) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ErrNotRunning
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil || !alive() {
		return ErrNotRunning
	}
	return nil
}

// Listening is true when something accepts connections at rawURL's host:
// a recorded pid alone may have been reused since.
func Listening(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return false
	}
	// Nothing listening answers at once (a reset); a listener whose queue
	// is full, on a busy machine, drops the first SYN and the kernel sends
	// the next one a second later: a bound of one second took such a
	// server for a dead one.
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
