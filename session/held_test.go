package session

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestHeldByThisProcess tells the refusal of a lease this process holds
// already from any other error.
func TestHeldByThisProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	a, err := OpenSQLite(t.Context(), SQLiteConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenSQLite(t.Context(), SQLiteConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l, err := a.Acquire(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	_, err = b.Acquire(t.Context(), "s1")
	if !errors.Is(err, ErrInUse) || !HeldByThisProcess(err) {
		t.Fatalf("second Acquire in this process: %v, HeldByThisProcess %v", err, HeldByThisProcess(err))
	}
	if HeldByThisProcess(ErrInUse) || HeldByThisProcess(errors.New("other")) || HeldByThisProcess(nil) {
		t.Fatal("HeldByThisProcess true for another error")
	}
}
