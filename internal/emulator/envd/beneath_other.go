//go:build unix && !linux

package envd

import (
	"errors"
	"os"
)

var errNoOpenat2 = errors.New("openat2 is not available")

func openBeneath(string, string, int, os.FileMode) (*os.File, error) { return nil, errNoOpenat2 }
