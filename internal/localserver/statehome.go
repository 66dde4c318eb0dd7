package localserver

import (
	"os"
	"path/filepath"

	"github.com/abx-dev/abx/internal/abxerr"
)

// StateHome is where abx keeps the state of the servers it runs:
// $XDG_STATE_HOME/abx, or ~/.local/state/abx (the XDG base directories'
// default). getenv is the command line's environment (the Factory's
// Getenv), so that a test's variables are the only ones read.
func StateHome(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "abx"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", abxerr.New(abxerr.InvalidConfig, "no home directory for abx's state: %v", err).
				WithHint("set HOME or XDG_STATE_HOME")
		}
	}
	return filepath.Join(home, ".local", "state", "abx"), nil
}
