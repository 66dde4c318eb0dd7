//go:build unix

package factory

import (
	"errors"

	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
	"github.com/abx-dev/abx/internal/emulator/record"
)

// emulatorLayer points an emulator's profile at the emulator serving its
// state dir: its URL and key as it runs now (a restart may move it).
// When none runs, the key is the error: a command on the profile says so,
// and how to start one, before it sends anything.
func emulatorLayer(l *cmdutil.Layer, p *cmdutil.Profile) {
	rt, err := record.Read(p.Emulator)
	if err == nil {
		l.Values["base_url"] = rt.URL + "/kruise/api"
		l.Values["protocol"] = "private"
		l.Key = func() (string, string, error) { return rt.APIKey, cmdutil.SourceEmulator, nil }
		return
	}
	if errors.Is(err, record.ErrNotRunning) {
		err = abxerr.New(abxerr.Network, "the emulator of profile %s is not running (state dir %s)", p.Name, p.Emulator).
			WithHint("start it: abx emulator start --state-dir %s", p.Emulator)
	} else {
		err = abxerr.New(abxerr.InvalidConfig, "cannot read the state of the emulator of profile %s: %v", p.Name, err)
	}
	l.Key = func() (string, string, error) { return "", "", err }
}
