package event

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// auditLog writes a log of the first n persisted sample events and
// returns its path and how many records it holds.
func auditLog(t *testing.T, n int) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := OpenAudit(AuditConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, e := range samples() {
		if spec, _ := SpecOf(e.Type); !spec.Persisted || written == n {
			continue
		}
		written++
		e.Seq = uint64(written)
		if err := a.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return path, written
}

func TestRepairSetsATornRecordAsideAndTheLogContinues(t *testing.T) {
	path, n := auditLog(t, 5)
	whole, _ := os.ReadFile(path)
	if err := os.WriteFile(path, whole[:len(whole)-20], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAudit(AuditConfig{Path: path}); err == nil {
		t.Fatal("a torn log must not be continued before it is repaired")
	}
	aside, err := RepairAudit(path, time.Unix(1790000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	torn, _ := os.ReadFile(aside)
	if len(torn) == 0 || filepath.Base(aside) != "audit.jsonl.torn-1790000000" {
		t.Errorf("set aside %q (%d bytes)", aside, len(torn))
	}
	if got, err := VerifyAuditFile(path); err != nil || got != n-1 {
		t.Errorf("after the repair: %d records, %v; want the %d complete ones", got, err, n-1)
	}
	a, err := OpenAudit(AuditConfig{Path: path})
	if err != nil {
		t.Fatalf("the repaired log must continue: %v", err)
	}
	a.Close()
}

func TestRepairRefusesWhatIsNotATornTail(t *testing.T) {
	path, _ := auditLog(t, 3)
	if _, err := RepairAudit(path, time.Now()); !errors.Is(err, ErrNothingToRepair) {
		t.Errorf("a complete log: %v", err)
	}
	b, _ := os.ReadFile(path)
	b[10] ^= 1 // tamper with the first record, then tear the last
	if err := os.WriteFile(path, b[:len(b)-5], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RepairAudit(path, time.Now()); err == nil {
		t.Error("a log broken before its torn record was repaired")
	}
	if after, _ := os.ReadFile(path); len(after) != len(b)-5 {
		t.Error("a refused repair changed the log")
	}
}
