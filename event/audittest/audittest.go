// Package audittest builds the records of an audit log by hand, from the
// format package event documents (event/audit.go) and without its code, as
// a verifier written elsewhere would: tests use it to forge records and to
// rewrite whole logs as someone without the key could.
package audittest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
)

// ZeroPrev is the prev of a session's first record: 64 '0'.
const ZeroPrev = "0000000000000000000000000000000000000000000000000000000000000000"

// AppendRecord appends the record of event (its JSON) at index, chained
// onto prev: keyed with key, or with a nil key unkeyed, as earlier versions
// wrote them (the SHA-256 in a "hash" member). It returns the record's seal,
// the next record's prev.
func AppendRecord(dst []byte, index uint64, prev string, event, key []byte) ([]byte, string) {
	canon := fmt.Appendf(nil, `{"index":%d,"prev":"%s","event":%s}`, index, prev, event)
	member, seal := "mac", ""
	if key == nil {
		sum := sha256.Sum256(canon)
		member, seal = "hash", hex.EncodeToString(sum[:])
	} else {
		m := hmac.New(sha256.New, key)
		m.Write(canon)
		seal = hex.EncodeToString(m.Sum(nil))
	}
	return fmt.Appendf(dst, "%s,%q:%q}\n", canon[:len(canon)-1], member, seal), seal
}

// Rehash rewrites every record of a log, its index and event unchanged, as
// the chain of a session's log from ZeroPrev on, keyed with key (nil:
// unkeyed): what someone without the key can do to a whole log.
func Rehash(t testing.TB, log, key []byte) []byte {
	t.Helper()
	var out []byte
	prev := ZeroPrev
	for line := range bytes.Lines(log) {
		var rec struct {
			Index uint64          `json:"index"`
			Event json.RawMessage `json:"event"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatalf("rehash: %v: %s", err, line)
		}
		out, prev = AppendRecord(out, rec.Index, prev, rec.Event, key)
	}
	return out
}
