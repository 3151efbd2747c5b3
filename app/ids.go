package app

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/moteur/moteur/ident"
)

// NewSessionID returns "s-<UTC time>-<16 hex digits>": the time prefix sorts
// sessions by creation in a directory listing, the random part keeps two
// sessions of the same second apart.
func NewSessionID(now time.Time, random io.Reader) (string, error) {
	var b [8]byte
	if _, err := io.ReadFull(random, b[:]); err != nil {
		return "", fmt.Errorf("new session id: %w", err)
	}
	return "s-" + now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:]), nil
}

// maxSessionIDLen bounds a session id, which names its log files: with
// ident's rule it has no separator, no leading dot, nothing a shell or
// another system would mangle.
const maxSessionIDLen = 128

// errSessionIDRule says what a session id must be.
var errSessionIDRule = errors.New("use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")

// CheckSessionID rejects an id that cannot name a log file safely (it would
// otherwise let "../x" write outside the data directory): its error says
// what an id must be, for the caller to name the id.
func CheckSessionID(id string) error {
	if !ident.Valid(id, maxSessionIDLen) {
		return errSessionIDRule
	}
	return nil
}

// checkSessionID is CheckSessionID with an error that names the id.
func checkSessionID(id string) error {
	if err := CheckSessionID(id); err != nil {
		return fmt.Errorf("invalid session id %q: %w", id, err)
	}
	return nil
}
