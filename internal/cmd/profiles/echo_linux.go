//go:build linux

package profiles

import "golang.org/x/sys/unix"

const ioctlGet, ioctlSet = unix.TCGETS, unix.TCSETS
