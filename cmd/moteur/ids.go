package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"time"
)

// newSessionID returns "s-<UTC time>-<16 hex digits>": the time prefix sorts
// sessions by creation in a directory listing, the random part keeps two
// runs of the same second apart.
func newSessionID(now time.Time, random io.Reader) (string, error) {
	var b [8]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("new session id: %w", err)
	}
	return "s-" + now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:]), nil
}

// sessionIDPattern keeps a session id usable as a file name: no separator,
// no leading dot, nothing a shell or another system would mangle.
var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// checkSessionID rejects an id given with --session that cannot name a log
// file safely (it would otherwise let "../x" write outside the data dir).
func checkSessionID(id string) error { return checkID("--session", id) }

// checkID checks a session id given as what (a flag, or "session id" for
// an argument).
func checkID(what, id string) error {
	if !sessionIDPattern.MatchString(id) {
		return usageErrorf("invalid %s %q: use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit", what, id)
	}
	return nil
}
