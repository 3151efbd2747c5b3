// Package atomicfile replaces a file's content whole: readers see the old
// content or the new one, never a mix, and a crash leaves one of the two.
// The new content goes to a temporary file in the same directory, with the
// file's mode from the start (a secret is never readable by others, even
// for a moment), is synced, and is renamed over the old file; the directory
// is then synced, best effort, so that the rename survives a power loss.
package atomicfile

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, mode perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc replaces path, mode perm, with what write writes (buffered).
// A failed write leaves the old content and no temporary file.
func WriteFunc(path string, perm fs.FileMode, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(perm)
	if err == nil {
		w := bufio.NewWriter(f)
		if err = write(w); err == nil {
			err = w.Flush()
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // some file systems cannot sync a directory
		_ = d.Close()
	}
	return nil
}
