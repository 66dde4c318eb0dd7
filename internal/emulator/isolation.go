//go:build unix

package emulator

import (
	"fmt"

	"github.com/abx-dev/abx/internal/emulator/jail"
)

// Isolation modes (Options.Isolation, `abx emulator start --isolation`).
const (
	// IsolationAuto isolates sandboxes where this machine allows it.
	IsolationAuto = "auto"
	// IsolationNamespaces requires it: the emulator does not start without.
	IsolationNamespaces = "namespaces"
	// IsolationNone runs sandbox processes on this machine as they are.
	IsolationNone = "none"
)

// decideIsolation says whether sandboxes get views of their own and, when
// they do not, why.
func decideIsolation(mode string) (isolated bool, why string, err error) {
	switch mode {
	case "", IsolationAuto:
		if err := jail.Available(); err != nil {
			return false, err.Error(), nil
		}
		return true, "", nil
	case IsolationNamespaces:
		if err := jail.Available(); err != nil {
			return false, "", err
		}
		return true, "", nil
	case IsolationNone:
		return false, "isolation is turned off (--isolation none)", nil
	}
	return false, "", fmt.Errorf("invalid isolation %q: use auto, namespaces or none", mode)
}
