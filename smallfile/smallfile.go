// Package smallfile reads the small files a user writes — configuration,
// a sub-agent file, an MCP configuration — within a size bound, so that a
// path naming something huge, endless or blocking (a FIFO, a device) fails
// with a clear error instead of filling memory or hanging.
package smallfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Errors Read may wrap; the others are the file system's (fs.ErrNotExist
// for a missing file).
var (
	ErrIsDir      = errors.New("is a directory, not a file")
	ErrNotRegular = errors.New("is not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// Read reads the regular file at path, of at most max bytes. The type is
// checked before opening, since opening a FIFO blocks until a writer comes.
func Read(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, ErrIsDir
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("larger than %d bytes: %w", max, ErrTooLarge)
	}
	return data, nil
}
