package event

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/moteur/moteur/atomicfile"
)

// An audit seal says that a log was whole when the process that last wrote
// it closed it: the file (device, inode), its size and its change and
// modification times at that moment, the chain's length and head, under a
// MAC with the audit key. A log that is still that file, of that size, with
// those times has not been written since — by anyone: the kernel sets a
// file's change time on every write, and no program can set it back — so
// continuing it need not read its records again, which is most of the time
// to continue a long session (a 100 000-event log is about 170 MB of MACs to
// check). Anything else — no seal, a seal that does not verify or does not
// describe the file as it is, a store that disagrees with it — and the log
// is verified whole, as without seals. `moteur audit verify` always reads
// the whole log: a seal only spares a continuation from doing it again.
//
// The seal is kept beside the log (SealPath), replaced whole; one lost in a
// crash only costs a full verification.

// auditSealPurpose separates the seal's MACs from the records': a record's
// MAC is over its canonical form, which starts with `{"index":`.
const auditSealPurpose = "moteur audit seal v1\n"

// SealPath is the seal's file for the log at logPath.
func SealPath(logPath string) string { return logPath + ".seal" }

// auditSeal is a seal's content.
type auditSeal struct {
	Session string    `json:"session"`
	File    fileStamp `json:"file"`
	// First, Next, Records, Unkeyed and Head are the report a full
	// verification gave (AuditReport).
	First   uint64 `json:"first"`
	Next    uint64 `json:"next"`
	Records int    `json:"records"`
	Unkeyed int    `json:"unkeyed,omitempty"`
	Head    string `json:"head"`
	MAC     string `json:"mac,omitempty"`
}

// fileStamp identifies a file and its last change: what a write by anyone
// changes.
type fileStamp struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Ctime int64  `json:"ctime"` // UnixNano
	Mtime int64  `json:"mtime"` // UnixNano
}

// sealMAC is the MAC of s without its mac member.
func sealMAC(key []byte, s auditSeal) (string, error) {
	s.MAC = ""
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(auditSealPurpose))
	m.Write(b)
	return hex.EncodeToString(m.Sum(nil)), nil
}

// writeSeal records that the log f, which a sink of session left at head
// after the record before next, is whole as it is now. The seal is
// replaced whole (a reader sees one seal or the other); failing, it
// removes the old seal, which no longer describes the log.
func writeSeal(path string, f *os.File, key []byte, s auditSeal) error {
	sealPath := SealPath(path)
	fi, err := f.Stat()
	if err != nil {
		_ = os.Remove(sealPath)
		return err
	}
	stamp, ok := stampOf(fi)
	if !ok {
		return nil // this platform cannot tell a changed file: no seal
	}
	s.File = stamp
	if s.MAC, err = sealMAC(key, s); err != nil {
		_ = os.Remove(sealPath)
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		_ = os.Remove(sealPath)
		return err
	}
	if err := atomicfile.Write(sealPath, append(b, '\n'), 0o600); err != nil {
		_ = os.Remove(sealPath)
		return err
	}
	return nil
}

// errNoSeal: the seal cannot stand for a verification; the log is read.
var errNoSeal = errors.New("no usable seal")

// sealedReport is the report a full verification of the log (the file fi)
// would give, taken from its seal, when the seal verifies with key,
// describes fi as it is and agrees with store; errNoSeal otherwise.
func sealedReport(path string, fi fs.FileInfo, key []byte, session string, store *AuditStore) (AuditReport, error) {
	b, err := os.ReadFile(SealPath(path))
	if err != nil {
		return AuditReport{}, errNoSeal
	}
	var s auditSeal
	if err := json.Unmarshal(bytes.TrimSpace(b), &s); err != nil {
		return AuditReport{}, errNoSeal
	}
	want, err := sealMAC(key, s)
	if err != nil || !hmac.Equal([]byte(want), []byte(s.MAC)) {
		return AuditReport{}, errNoSeal
	}
	stamp, ok := stampOf(fi)
	if !ok || stamp != s.File || s.Session != session || s.Records <= 0 {
		return AuditReport{}, errNoSeal
	}
	// The store must hold exactly the chain the seal describes, its last
	// head included: a seal says nothing of a store that changed since.
	n := uint64(len(store.Heads))
	if n == 0 || s.Next != n || s.First != store.First || store.Heads[n-1] == nil ||
		hex.EncodeToString(store.Heads[n-1]) != s.Head {
		return AuditReport{}, errNoSeal
	}
	return AuditReport{SessionID: session, First: s.First, Next: s.Next, Records: s.Records,
		Unkeyed: s.Unkeyed, Authenticated: true, Head: s.Head}, nil
}
