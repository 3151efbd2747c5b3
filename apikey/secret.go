package apikey

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// A secret is "mk_" + the key's id + "_" + 43 characters of base64url: the
// id finds the row, the whole secret's SHA-256 is what the row holds.
const (
	prefix      = "mk_"
	idBytes     = 8  // 16 hex digits
	secretBytes = 32 // 43 base64url characters, 256 bits
)

var secretEncoding = base64.RawURLEncoding

// newSecret draws a key id and its secret from r.
func newSecret(r io.Reader) (id, secret string, err error) {
	buf := make([]byte, idBytes+secretBytes)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", "", fmt.Errorf("random key: %w", err)
	}
	id = hex.EncodeToString(buf[:idBytes])
	return id, prefix + id + "_" + secretEncoding.EncodeToString(buf[idBytes:]), nil
}

// parseSecret returns the id a well-formed secret carries.
func parseSecret(secret string) (id string, ok bool) {
	rest, ok := strings.CutPrefix(secret, prefix)
	if !ok {
		return "", false
	}
	id, random, ok := strings.Cut(rest, "_")
	if !ok || len(id) != 2*idBytes || len(random) != secretEncoding.EncodedLen(secretBytes) {
		return "", false
	}
	if _, err := hex.DecodeString(id); err != nil || strings.ToLower(id) != id {
		return "", false
	}
	if b, err := secretEncoding.DecodeString(random); err != nil || len(b) != secretBytes {
		return "", false
	}
	return id, true
}

func hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}
