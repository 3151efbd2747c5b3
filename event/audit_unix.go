//go:build unix

package event

import (
	"io/fs"
	"syscall"
)

// linkCount is the number of names fi's file has: 0 once it is deleted,
// though still open.
func linkCount(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}
