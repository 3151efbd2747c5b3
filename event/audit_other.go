//go:build !unix

package event

import "io/fs"

// linkCount is unknown here: a deleted file is told by os.Stat of its path
// alone.
func linkCount(fs.FileInfo) (uint64, bool) { return 0, false }
