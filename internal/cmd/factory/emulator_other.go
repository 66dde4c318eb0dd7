//go:build !unix

package factory

import (
	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/cmdutil"
)

// emulatorLayer: there is no emulator here to point at.
func emulatorLayer(l *cmdutil.Layer, p *cmdutil.Profile) {
	err := abxerr.New(abxerr.Unsupported, "profile %s points at an emulator, which runs on Linux and macOS only", p.Name).
		WithHint("use another profile (--profile)")
	l.Key = func() (string, string, error) { return "", "", err }
}
