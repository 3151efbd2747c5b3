package event

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// AuditError locates the first bad record of an audit log.
type AuditError struct {
	// Index is the 0-based position of the bad record (its line - 1),
	// whatever index the record claims.
	Index int
	// Line is its 1-based line number.
	Line   int
	Reason string
}

func (e *AuditError) Error() string {
	return fmt.Sprintf("record %d (line %d): %s", e.Index, e.Line, e.Reason)
}

// VerifyAudit checks the hash chain of an audit log and returns the number
// of records. On a broken chain err is an *AuditError naming the first bad
// record, and records counts the good ones before it. An empty log is valid.
// Lines may be of any length.
func VerifyAudit(r io.Reader) (records int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	prev := zeroHash
	for at := 0; ; at++ {
		line, complete, err := readAuditLine(br, buf[:0])
		buf = line
		if err != nil && !errors.Is(err, io.EOF) {
			return at, fmt.Errorf("read audit log: %w", err)
		}
		if !complete {
			if len(line) == 0 {
				return at, nil // the end, after a whole line
			}
			return at, &AuditError{Index: at, Line: at + 1, Reason: "truncated record: no end of line"}
		}
		rec, reason := parseAuditRecord(line)
		switch {
		case reason != "":
		case rec.Index != uint64(at):
			reason = fmt.Sprintf("index %d, want %d (a record deleted, duplicated or moved)", rec.Index, at)
		case rec.Prev != prev:
			reason = fmt.Sprintf("prev %.12s… is not the previous record's hash %.12s…", rec.Prev, prev)
		default:
			reason = auditRecordIntegrity(line, rec)
		}
		if reason != "" {
			return at, &AuditError{Index: at, Line: at + 1, Reason: reason}
		}
		prev = rec.Hash
	}
}

// VerifyAuditFile is VerifyAudit of the file at path.
func VerifyAuditFile(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("audit log %s: %w", path, err)
	}
	defer f.Close()
	n, err := VerifyAudit(f)
	if err != nil {
		return n, fmt.Errorf("audit log %s: %w", path, err)
	}
	return n, nil
}

// readAuditLine reads one line into buf, without its end of line; complete
// is false at the end of the input (line then holds a torn last line, if
// any). Unlike bufio.Scanner it has no length limit: events can be MBs.
func readAuditLine(br *bufio.Reader, buf []byte) (line []byte, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, false, err
		}
	}
}

// auditRecord is a record as read back.
type auditRecord struct {
	Index uint64
	Prev  string
	Event json.RawMessage
	Hash  string
}

// parseAuditRecord decodes a line; reason says what is wrong with it.
func parseAuditRecord(line []byte) (auditRecord, string) {
	var w struct {
		Index *uint64         `json:"index"`
		Prev  *string         `json:"prev"`
		Event json.RawMessage `json:"event"`
		Hash  *string         `json:"hash"`
	}
	if len(line) == 0 {
		return auditRecord{}, "empty line"
	}
	if err := json.Unmarshal(line, &w); err != nil {
		return auditRecord{}, fmt.Sprintf("invalid JSON: %v", err)
	}
	switch {
	case w.Index == nil:
		return auditRecord{}, "no index"
	case w.Prev == nil || !isHexHash(*w.Prev):
		return auditRecord{}, "prev is not a SHA-256 in hex"
	case len(w.Event) == 0 || w.Event[0] != '{':
		return auditRecord{}, "event is not an object"
	case w.Hash == nil || !isHexHash(*w.Hash):
		return auditRecord{}, "hash is not a SHA-256 in hex"
	}
	return auditRecord{Index: *w.Index, Prev: *w.Prev, Event: w.Event, Hash: *w.Hash}, ""
}

// auditRecordIntegrity checks a parsed record against its line: the hash
// over the canonical form, and the line being exactly the canonical
// encoding (no blank, member or escape added that the hash would not see).
func auditRecordIntegrity(line []byte, rec auditRecord) string {
	// json.Marshal of the defining struct, not the writer's fast path: the
	// verifier checks the writer.
	canon, err := json.Marshal(auditCanonical{Index: rec.Index, Prev: rec.Prev, Event: rec.Event})
	if err != nil {
		return fmt.Sprintf("event does not encode: %v", err)
	}
	sum := sha256.Sum256(canon)
	if got := hex.EncodeToString(sum[:]); got != rec.Hash {
		return fmt.Sprintf("hash mismatch: stored %.12s…, computed %.12s…", rec.Hash, got)
	}
	want := append(canon[:len(canon)-1:len(canon)-1], `,"hash":"`...)
	want = append(want, rec.Hash...)
	want = append(want, `"}`...)
	if !bytes.Equal(want, line) {
		return "not in canonical form"
	}
	return ""
}

func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
