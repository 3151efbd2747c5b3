package netguard

import (
	"fmt"
	"io"
)

// ReadBody reads at most limit bytes of r; truncated reports that there was
// more. A body that never ends is cut at limit, one that never comes is
// bounded by the request's deadline.
func ReadBody(r io.Reader, limit int64) (data []byte, truncated bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	if err != nil {
		return data, false, fmt.Errorf("reading the body: %w", err)
	}
	return data, false, nil
}
