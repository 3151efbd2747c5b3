package event

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSparseStoreStillCatchesEveryTamper: checked against the store's count
// and last head only (what a continuation reads), a log is still refused
// when any record was edited, removed or the chain replaced, since each
// MAC covers the one before; the clean log verifies.
func TestSparseStoreStillCatchesEveryTamper(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	st := &testStore{}
	for _, e := range auditEvents(8) {
		st.write(t, a, e)
	}
	a.Close()
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sparse := func(heads [][]byte) *AuditStore {
		out := make([][]byte, len(heads))
		out[len(out)-1] = heads[len(heads)-1]
		return &AuditStore{Heads: out, Sparse: true}
	}
	if rep, err := VerifyAudit(bytes.NewReader(clean), AuditCheck{Key: testKey, Store: sparse(st.heads)}); err != nil || rep.Records != 8 {
		t.Fatalf("clean log, sparse store: %+v, %v", rep, err)
	}
	lines := strings.SplitAfter(string(clean), "\n")
	edited := strings.Join(append(append(append([]string{}, lines[:3]...), strings.Replace(lines[3], `"seq":4`, `"seq":4 `, 1)), lines[4:]...), "")
	if _, err := VerifyAudit(strings.NewReader(edited), AuditCheck{Key: testKey, Store: sparse(st.heads)}); err == nil || !strings.Contains(err.Error(), "record 3") {
		t.Errorf("a middle record edited: %v", err)
	}
	short := strings.Join(lines[:7], "")
	if _, err := VerifyAudit(strings.NewReader(short), AuditCheck{Key: testKey, Store: sparse(st.heads)}); !errors.Is(err, ErrAuditShort) {
		t.Errorf("the last record removed: %v", err)
	}
	otherLast := sparse(st.heads)
	otherLast.Heads[7] = bytes.Repeat([]byte{7}, AuditKeySize)
	if _, err := VerifyAudit(bytes.NewReader(clean), AuditCheck{Key: testKey, Store: otherLast}); err == nil || !strings.Contains(err.Error(), "record 7") {
		t.Errorf("a last head the log does not end with: %v", err)
	}
	// A full store still tells an erased middle head, which a sparse one
	// cannot see (a continuation leaves that to moteur audit verify).
	full := &AuditStore{Heads: append([][]byte(nil), st.heads...)}
	full.Heads[2] = nil
	if _, err := VerifyAudit(bytes.NewReader(clean), AuditCheck{Key: testKey, Store: full}); err == nil || !strings.Contains(err.Error(), "erased") {
		t.Errorf("an erased head, full store: %v", err)
	}
}
