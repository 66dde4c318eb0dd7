package cmdutil

import (
	"github.com/abx-dev/abx/internal/abxerr"
	"github.com/abx-dev/abx/internal/provider"
)

// PausedError is the command line's error for the data plane of a paused
// sandbox: the one error every command that works inside a sandbox gives
// (exec, terminal, files, ps, run-code, metrics, port-forward;
// docs/errors.md, E2001), with the commands that resume it.
func PausedError(id string) *abxerr.Error {
	return provider.PausedError(id).WithHint("resume it first: 'abx resume %s'", id)
}
