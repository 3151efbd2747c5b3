package session

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// storedSnapshots lists the seqs of a session's snapshot rows: what the
// Store interface cannot show, LatestSnapshot giving only the latest.
func storedSnapshots(t *testing.T, path, id string) []uint64 {
	t.Helper()
	rows, err := rawDB(t, path).Query(`SELECT seq FROM snapshots WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []uint64
	for rows.Next() {
		var seq uint64
		if err := rows.Scan(&seq); err != nil {
			t.Fatal(err)
		}
		out = append(out, seq)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotsKept: only the 2 most recent snapshots by seq stay, whatever
// the order they were saved in; another session's are not touched.
func TestSnapshotsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	ctx := context.Background()
	for _, id := range []string{"k", "other"} {
		if err := s.Append(ctx, notes(id, 1, 20)...); err != nil {
			t.Fatal(err)
		}
	}
	for _, seq := range []uint64{3, 7} {
		if err := s.SaveSnapshot(ctx, "other", Snapshot{Seq: seq, Data: []byte("o")}); err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		seq  uint64
		kept []uint64
	}{
		{5, []uint64{5}},
		{10, []uint64{5, 10}},
		{15, []uint64{10, 15}},
		{12, []uint64{12, 15}},
		{1, []uint64{12, 15}}, // older than both: dropped at once
		{15, []uint64{12, 15}},
		{20, []uint64{15, 20}},
	} {
		if err := s.SaveSnapshot(ctx, "k", Snapshot{Seq: step.seq, Data: fmt.Appendf(nil, "at %d", step.seq)}); err != nil {
			t.Fatal(err)
		}
		if got := storedSnapshots(t, path, "k"); !slices.Equal(got, step.kept) {
			t.Fatalf("after saving at %d: snapshots at %v, want %v", step.seq, got, step.kept)
		}
	}
	if got := storedSnapshots(t, path, "other"); !slices.Equal(got, []uint64{3, 7}) {
		t.Fatalf("another session's snapshots: %v, want [3 7]", got)
	}
}
