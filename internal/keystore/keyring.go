package keystore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/zalando/go-keyring"
)

// service names abx's items in the keyring; each item's account is the
// profile and its config file (PROFILE@PATH).
const service = "abx"

// Timeout bounds each call to the keyring: a Secret Service that is
// locked behind a prompt nobody sees, or a bus that does not answer, must
// not hang abx.
var Timeout = 3 * time.Second

// Keyring is the OS keyring: Secret Service over the session bus on
// Linux and the BSDs, the Keychain on macOS, the Credential Manager on
// Windows (github.com/zalando/go-keyring, as gh uses).
type Keyring struct {
	account func(profile string) string
	getenv  func(string) string
}

// ErrUnavailable says no keyring answers here.
var ErrUnavailable = errors.New("no keyring answers here")

// errNoBus is ErrUnavailable where there is no session bus to reach a
// keyring by (a headless server or CI has none, and asking would try to
// start one).
var errNoBus = fmt.Errorf("%w: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)", ErrUnavailable)

// hasBus tells whether Secret Service can be reached at all: only where
// it speaks over a session bus.
func (k *Keyring) hasBus() bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	if k.getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	if d := k.getenv("XDG_RUNTIME_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "bus")); err == nil {
			return true
		}
	}
	return false
}

// Get reads the profile's key.
func (k *Keyring) Get(profile string) (string, error) {
	if !k.hasBus() {
		return "", errNoBus
	}
	var key string
	err := bounded(func() error {
		var err error
		key, err = keyring.Get(service, k.account(profile))
		return err
	})
	return key, err
}

// Set stores the profile's key.
func (k *Keyring) Set(profile, key string) error {
	if !k.hasBus() {
		return errNoBus
	}
	return bounded(func() error { return keyring.Set(service, k.account(profile), key) })
}

// Delete removes the profile's key; one not there is no error.
func (k *Keyring) Delete(profile string) error {
	if !k.hasBus() {
		return errNoBus
	}
	err := bounded(func() error { return keyring.Delete(service, k.account(profile)) })
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// bounded runs one keyring call within Timeout. A call that does not
// return is left behind: the process ends soon, and nothing waits on it.
func bounded(call func() error) error {
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		if errors.Is(err, keyring.ErrNotFound) {
			return ErrNotFound
		}
		return err
	case <-time.After(Timeout):
		return fmt.Errorf("the keyring did not answer within %s", Timeout)
	}
}
