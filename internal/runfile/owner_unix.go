//go:build unix

package runfile

import (
	"io/fs"
	"syscall"
)

// ownerOf is the uid that owns a file.
func ownerOf(info fs.FileInfo) (uint32, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
