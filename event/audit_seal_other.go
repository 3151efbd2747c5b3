//go:build !linux

package event

import "io/fs"

// stampOf is unknown here: no seal is written, and every log is verified
// whole.
func stampOf(fs.FileInfo) (fileStamp, bool) { return fileStamp{}, false }
