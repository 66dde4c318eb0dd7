//go:build windows

package profiles

import (
	"os"

	"golang.org/x/sys/windows"
)

// echoOff turns the console's echo off, its line input kept, and returns
// what restores its mode.
func echoOff(f *os.File) (restore func(), err error) {
	h := windows.Handle(f.Fd())
	var before uint32
	if err := windows.GetConsoleMode(h, &before); err != nil {
		return nil, err
	}
	if err := windows.SetConsoleMode(h, (before&^windows.ENABLE_ECHO_INPUT)|windows.ENABLE_LINE_INPUT|windows.ENABLE_PROCESSED_INPUT); err != nil {
		return nil, err
	}
	return func() { _ = windows.SetConsoleMode(h, before) }, nil
}
