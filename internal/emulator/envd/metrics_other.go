//go:build unix && !linux

package envd

import (
	"errors"
	"time"
)

// cpuMeter has nothing to keep where nothing is measured.
type cpuMeter struct{}

func (*cpuMeter) start() {}

// measure says why there is nothing to answer: the emulator reads a
// sandbox's CPU, memory and disk from Linux's /proc and cgroups.
func (*Server) measure(time.Time) (usage, error) {
	return usage{}, errors.New("the emulator measures sandboxes on Linux only")
}
