//go:build unix

// Package record is what a running emulator writes in its state dir for
// other abx processes to find it: its URL, pid and key. It is apart from
// the emulator so that a reader (the factory, for a profile that points
// at an emulator; 'abx emulator env') links none of the emulator's
// servers: every run of abx reads it, few run the emulator.
package record

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/abx-dev/abx/internal/runfile"
)

// File is the record's name in a state dir, there while the emulator
// runs.
const File = "emulator.json"

// Runtime is what a running emulator tells 'abx emulator env'.
type Runtime struct {
	URL    string `json:"url"`
	PID    int    `json:"pid"`
	APIKey string `json:"apiKey"`
	// NotIsolated says why sandboxes have no views of their own; empty
	// when they have.
	NotIsolated string `json:"notIsolated,omitempty"`
}

// Env is the environment that points abx at the emulator.
func (r *Runtime) Env() []string { return Env(r.URL, r.APIKey) }

// Env is the environment that points abx at the emulator at url with
// key: the private protocol over its plain-HTTP origin.
func Env(url, key string) []string {
	return []string{
		"ABX_PROVIDER=alicloud-container",
		"ABX_ALICLOUD_CONTAINER_PROTOCOL=private",
		"ABX_ALICLOUD_CONTAINER_BASE_URL=" + url + "/kruise/api",
		"ABX_ALICLOUD_CONTAINER_DOMAIN=",
		"ABX_ALICLOUD_CONTAINER_API_KEY=" + key,
	}
}

// Write records r in the state dir dir.
func Write(dir string, r Runtime) error { return runfile.Write(filepath.Join(dir, File), r) }

// Remove takes the record out of dir, when the emulator stops.
func Remove(dir string) { _ = os.Remove(filepath.Join(dir, File)) }

// ErrNotRunning says no emulator serves a state dir.
var ErrNotRunning = errors.New("no emulator is running")

// Read finds the emulator serving dir, or ErrNotRunning. A record left by
// an emulator that died is ignored.
func Read(dir string) (*Runtime, error) {
	var r Runtime
	err := runfile.Read(filepath.Join(dir, File), &r, r.alive)
	if errors.Is(err, runfile.ErrNotRunning) {
		return nil, ErrNotRunning
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// alive is true when the process exists and something listens on the
// URL: a pid alone may have been reused since.
func (r *Runtime) alive() bool {
	if r.PID <= 0 {
		return false
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return runfile.Listening(r.URL)
}
