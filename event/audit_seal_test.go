//go:build linux

package event

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// corruptMiddle changes one byte inside record 2's event text, in place:
// the file keeps its inode and its size.
func corruptMiddle(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	at := len(bytes.Join(lines[:2], nil)) + bytes.Index(lines[2], []byte(`"ok"`)) + 1
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte("K"), int64(at)); err != nil {
		t.Fatal(err)
	}
}

func openSealed(path string, st *testStore) (*AuditSink, error) {
	return OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: st.audit()})
}

// TestAuditSealStandsForTheVerificationOfAnUnchangedLog: a log closed
// whole is sealed, and opening it again takes the seal for the full
// verification — shown by a seal the test makes itself for a log it broke:
// the log is not read, and the chain goes on from the seal's head.
func TestAuditSealStandsForTheVerificationOfAnUnchangedLog(t *testing.T) {
	path, st := writeAuditLog(t, 6)
	if _, err := os.Stat(SealPath(path)); err != nil {
		t.Fatalf("no seal after a clean close: %v", err)
	}
	corruptMiddle(t, path)
	// The corruption changed the file: the seal no longer describes it,
	// and the log is verified whole, and refused.
	var ae *AuditError
	if _, err := openSealed(path, st); !errors.As(err, &ae) || ae.Index != 2 {
		t.Fatalf("a log changed after its seal: %v, want record 2 refused", err)
	}
	// A seal made for the file as it is now, with the key, is believed:
	// the log is opened without reading it (its broken record 2 unseen).
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	head := st.audit().Heads[5]
	err = writeSeal(path, f, testKey, auditSeal{Session: "s1", Next: 6, Records: 6, Head: hexOf(head)})
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, err := openSealed(path, st)
	if err != nil {
		t.Fatalf("a log its seal describes: %v", err)
	}
	defer a.Close()
	if a.index != 6 || a.prev != hexOf(head) || a.records != 6 {
		t.Fatalf("continued at index %d after %s (%d records), want 6 after the seal's head", a.index, a.prev, a.records)
	}
}

// TestAuditSealIsNotTakenWhenItDoesNotFit: a seal is only believed when
// its MAC verifies with the key, it describes the file as it is, and the
// store holds the chain it describes; otherwise the log is read, and the
// tampering found.
func TestAuditSealIsNotTakenWhenItDoesNotFit(t *testing.T) {
	cases := []struct {
		name string
		seal func(path string, f *os.File, st *testStore) error
		st   func(st *testStore) *testStore
	}{
		{"another key's seal", func(path string, f *os.File, st *testStore) error {
			return writeSeal(path, f, otherKey, auditSeal{Session: "s1", Next: 6, Records: 6, Head: hexOf(st.heads[5])})
		}, nil},
		{"a seal of another session", func(path string, f *os.File, st *testStore) error {
			return writeSeal(path, f, testKey, auditSeal{Session: "s2", Next: 6, Records: 6, Head: hexOf(st.heads[5])})
		}, nil},
		{"a seal of a shorter chain", func(path string, f *os.File, st *testStore) error {
			return writeSeal(path, f, testKey, auditSeal{Session: "s1", Next: 5, Records: 5, Head: hexOf(st.heads[4])})
		}, nil},
		{"a store whose last head is not the seal's", func(path string, f *os.File, st *testStore) error {
			return writeSeal(path, f, testKey, auditSeal{Session: "s1", Next: 6, Records: 6, Head: hexOf(st.heads[5])})
		}, func(st *testStore) *testStore {
			heads := append([][]byte(nil), st.heads...)
			heads[5] = bytes.Repeat([]byte{9}, AuditKeySize)
			return &testStore{heads: heads}
		}},
		{"a seal edited by hand", func(path string, f *os.File, st *testStore) error {
			if err := writeSeal(path, f, testKey, auditSeal{Session: "s1", Next: 6, Records: 6, Head: hexOf(st.heads[5])}); err != nil {
				return err
			}
			b, err := os.ReadFile(SealPath(path))
			if err != nil {
				return err
			}
			return os.WriteFile(SealPath(path), bytes.Replace(b, []byte(`"records":6`), []byte(`"records":7`), 1), 0o600)
		}, nil},
		{"a seal that is not JSON", func(path string, f *os.File, st *testStore) error {
			return os.WriteFile(SealPath(path), []byte("{not json\n"), 0o600)
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path, st := writeAuditLog(t, 6)
			corruptMiddle(t, path)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			err = c.seal(path, f, st)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if c.st != nil {
				st = c.st(st)
			}
			// Read whole, the log is refused at the record the test
			// broke (or at the store's head it does not end with).
			if a, err := openSealed(path, st); err == nil {
				a.Close()
				t.Fatal("a broken log was continued on a seal that does not fit")
			} else if !strings.Contains(err.Error(), "record 2") && !strings.Contains(err.Error(), "record 5") {
				t.Fatalf("refused, but not for the broken record: %v", err)
			}
		})
	}
}

// TestAuditSealFollowsTheLog: each clean close seals the log as it is,
// a continuation that appended moves the seal on, and a log whose writer
// stopped without closing (a crash) or failed is verified whole.
func TestAuditSealFollowsTheLog(t *testing.T) {
	path, st := writeAuditLog(t, 3)
	a, err := openSealed(path, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range auditEvents(5)[3:] {
		st.write(t, a, e)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sealedReport(path, fi, testKey, "s1", st.audit())
	if err != nil || rep.Next != 5 || rep.Records != 5 || rep.Head != hexOf(st.heads[4]) {
		t.Fatalf("seal after a continuation: %+v, %v; want 5 records ending at the store's head", rep, err)
	}
	// A writer that never closes (the process was killed) leaves the
	// seal of the file before its records: it no longer fits.
	a, err = openSealed(path, st)
	if err != nil {
		t.Fatal(err)
	}
	st.write(t, a, auditEvents(6)[5])
	if fi, err = os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if _, err := sealedReport(path, fi, testKey, "s1", st.audit()); !errors.Is(err, errNoSeal) {
		t.Fatalf("the seal of the log before a record was taken for the log after it: %v", err)
	}
	a.Close()
}
