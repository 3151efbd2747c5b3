package event

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// auditLog writes a log of the first n persisted sample events and
// returns its path, what the store holds of it, and how many records it
// holds.
func auditLog(t *testing.T, n int) (string, *testStore, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	st := &testStore{}
	written := 0
	for _, e := range samples() {
		if spec, _ := SpecOf(e.Type); !spec.Persisted || written == n {
			continue
		}
		written++
		e.Seq, e.SessionID = uint64(written), "s1"
		st.write(t, a, e)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return path, st, written
}

func TestRepairSetsATornRecordAsideAndTheLogContinues(t *testing.T) {
	path, st, n := auditLog(t, 5)
	whole, _ := os.ReadFile(path)
	if err := os.WriteFile(path, whole[:len(whole)-20], 0o600); err != nil {
		t.Fatal(err)
	}
	// The torn record never reached the store: the log is written first.
	st.heads = st.heads[:n-1]
	cfg := AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: st.audit()}
	if _, err := OpenAudit(cfg); !errors.Is(err, ErrAuditTorn) {
		t.Fatalf("a torn log must not be continued before it is repaired: %v", err)
	}
	// Without the key, the records before cannot be authenticated.
	if _, err := RepairAudit(path, AuditCheck{SessionID: "s1", Store: st.audit()}, nil, time.Now()); err == nil || !strings.Contains(err.Error(), "without the at-rest key") {
		t.Fatalf("repair without the key: %v", err)
	}
	r, err := RepairAudit(path, check(st), nil, time.Unix(1790000000, 0))
	if err != nil || r.Rebuilt != 0 {
		t.Fatal(r, err)
	}
	aside := r.Aside
	torn, _ := os.ReadFile(aside)
	if len(torn) == 0 || filepath.Base(aside) != "audit.jsonl.torn-1790000000" {
		t.Errorf("set aside %q (%d bytes)", aside, len(torn))
	}
	if rep, err := VerifyAuditFile(path, check(st)); err != nil || rep.Records != n-1 {
		t.Errorf("after the repair: %+v, %v; want the %d complete ones", rep, err, n-1)
	}
	a, err := OpenAudit(cfg)
	if err != nil {
		t.Fatalf("the repaired log must continue: %v", err)
	}
	a.Close()
}

func TestRepairRefusesWhatIsNotATornTail(t *testing.T) {
	path, st, _ := auditLog(t, 3)
	if _, err := RepairAudit(path, check(st), nil, time.Now()); !errors.Is(err, ErrNothingToRepair) {
		t.Errorf("a complete log: %v", err)
	}
	b, _ := os.ReadFile(path)
	b[10] ^= 1 // tamper with the first record, then tear the last
	if err := os.WriteFile(path, b[:len(b)-5], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RepairAudit(path, check(st), nil, time.Now()); err == nil {
		t.Error("a log broken before its torn record was repaired")
	}
	if after, _ := os.ReadFile(path); len(after) != len(b)-5 {
		t.Error("a refused repair changed the log")
	}
}

// An earlier version's log, torn, is repaired without a key: it has none.
func TestRepairAnEarlierVersionsLog(t *testing.T) {
	old, err := os.ReadFile(filepath.Join("testdata", "audit-v0", "compat-v02.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "compat-v02.jsonl")
	if err := os.WriteFile(path, old[:len(old)-7], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := RepairAudit(path, AuditCheck{}, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, old[:bytes.LastIndexByte(old[:len(old)-1], '\n')+1]) {
		t.Errorf("repaired to\n%s", after)
	}
}

// A record the store took whole, whose end the disk lost since, is written
// again from the store's event, authenticated by the head stored with it.
func TestRepairRebuildsATornRecordTheStoreHolds(t *testing.T) {
	path, st := writeAuditLog(t, 6)
	whole, _ := os.ReadFile(path)
	evs := auditEvents(6)
	for _, cut := range []int{1, 10, 200} {
		if err := os.WriteFile(path, whole[:len(whole)-cut], 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := RepairAudit(path, check(st), evs, time.Unix(int64(1790000000+cut), 0))
		if err != nil || r.Rebuilt != 6 {
			t.Fatalf("cut %d: %+v, %v; want record of seq 6 rebuilt", cut, r, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, whole) {
			t.Fatalf("cut %d: rebuilt\n%s\nwant\n%s", cut, after, whole)
		}
		if torn, _ := os.ReadFile(r.Aside); !bytes.Equal(torn, whole[bytes.LastIndexByte(whole[:len(whole)-1], '\n')+1:len(whole)-cut]) {
			t.Errorf("cut %d: set aside %q", cut, torn)
		}
	}
	// Another event in the store than the one recorded: not rebuilt, and
	// the log is left as it was.
	if err := os.WriteFile(path, whole[:len(whole)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	other := slices.Clone(evs)
	other[5].Payload = TurnCompletedPayload{Reason: StopNatural, Answer: "autre"}
	if _, err := RepairAudit(path, check(st), other, time.Now()); err == nil || !strings.Contains(err.Error(), "does not rebuild the torn record") {
		t.Errorf("a store event that is not the record's: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, whole[:len(whole)-10]) {
		t.Error("a refused repair changed the log")
	}
	// Without the key, nothing can be rebuilt.
	if _, err := RepairAudit(path, AuditCheck{SessionID: "s1", Store: st.audit()}, evs, time.Now()); err == nil {
		t.Error("rebuilt without the key")
	}
}

// A log whose lines are whole but one in the middle was changed is not
// damage: repair says where it is tampered and leaves the file as it is,
// rather than that there is nothing to repair.
func TestRepairSaysWhereACompleteLogIsTampered(t *testing.T) {
	path, st, n := auditLog(t, 5)
	b, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) < n || !bytes.Contains(lines[2], []byte(`"time":"`)) {
		t.Fatalf("%d lines, third %q", len(lines), lines[2])
	}
	i := bytes.Index(lines[2], []byte(`"time":"`)) + len(`"time":"`)
	lines[2][i] ^= 1 // the year of record 2's event, seq 3
	tampered := bytes.Join(lines, nil)
	must(t, os.WriteFile(path, tampered, 0o600))

	_, err := RepairAudit(path, check(st), nil, time.Now())
	if !errors.Is(err, ErrAuditTampered) || errors.Is(err, ErrNothingToRepair) ||
		!strings.Contains(err.Error(), "tampered at record 2 (line 3, seq 3): ") || !strings.Contains(err.Error(), "nothing was repaired") {
		t.Fatalf("repair of a log tampered in the middle: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, tampered) {
		t.Error("a refused repair changed the log")
	}
	if aside, _ := filepath.Glob(path + ".torn-*"); len(aside) != 0 {
		t.Errorf("a refused repair set something aside: %v", aside)
	}

	// Torn as well: the record before the torn one is still where it is
	// tampered.
	must(t, os.WriteFile(path, tampered[:len(tampered)-5], 0o600))
	if _, err := RepairAudit(path, check(st), nil, time.Now()); !errors.Is(err, ErrAuditTampered) ||
		!strings.Contains(err.Error(), "record 2 (line 3, seq 3)") {
		t.Errorf("repair of a torn log tampered before: %v", err)
	}
	// Its last record removed whole: the log is short of the store's.
	lines[2][i] ^= 1
	must(t, os.WriteFile(path, bytes.Join(lines[:n-1], nil), 0o600))
	if _, err := RepairAudit(path, check(st), nil, time.Now()); !errors.Is(err, ErrAuditTampered) ||
		!strings.Contains(err.Error(), fmt.Sprintf("record %d (line %d, seq %d)", n-1, n, n)) {
		t.Errorf("repair of a log short of its last record: %v", err)
	}
}
