package event

import (
	"io/fs"
	"syscall"
)

// stampOf is fi's file stamp: its device, inode, size, change and
// modification times.
func stampOf(fi fs.FileInfo) (fileStamp, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{Dev: uint64(st.Dev), Ino: st.Ino, Size: st.Size,
		Ctime: st.Ctim.Nano(), Mtime: st.Mtim.Nano()}, true
}
