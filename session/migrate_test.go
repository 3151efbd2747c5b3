package session

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
)

// databaseAt writes a database of schema version v, as the Moteur of that
// version left it (migrate's steps, done by hand), holding the session
// "old" of n events.
func databaseAt(t *testing.T, v, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "moteur.db")
	db := rawDB(t, path)
	stmts := []string{
		`CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at TEXT NOT NULL)`,
		fmt.Sprintf("PRAGMA application_id = %d", applicationID),
	}
	stmts = append(stmts, migrations[:v]...)
	for i := range v {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '2026-01-01T00:00:00Z')`, i+1))
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("schema version %d: %v", v, err)
		}
	}
	evs := notes("old", 1, uint64(n))
	if _, err := db.Exec(`INSERT INTO sessions (id, created_at, updated_at, last_seq, events) VALUES ('old', ?, ?, ?, ?)`,
		nanos(evs[0].Time), nanos(evs[n-1].Time), n, n); err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		data, _ := json.Marshal(e)
		if _, err := db.Exec(`INSERT INTO events (session_id, seq, type, time, data) VALUES ('old', ?, ?, ?, ?)`,
			e.Seq, string(e.Type), nanos(e.Time), string(data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMigrateFromVersion2: a database of the version before snapshots and
// approvals opens, keeps its sessions and gains both.
func TestMigrateFromVersion2(t *testing.T) {
	path := databaseAt(t, 2, 5)
	s := openTest(t, path)
	ctx := context.Background()
	evs, err := s.Load(ctx, "old")
	if err != nil || len(evs) != 5 {
		t.Fatalf("the old session after migrating: %d events, %v", len(evs), err)
	}
	var versions []int
	rows, err := rawDB(t, path).Query(`SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	rows.Close()
	if want := []int{1, 2, 3, 4}; !slices.Equal(versions, want) {
		t.Fatalf("schema versions %v, want %v", versions, want)
	}
	if _, ok, err := s.LatestSnapshot(ctx, "old"); ok || err != nil {
		t.Fatalf("a migrated session has a snapshot (%v) or none can be read: %v", ok, err)
	}
	if err := s.SaveSnapshot(ctx, "old", Snapshot{Seq: 5, Data: []byte("state")}); err != nil {
		t.Fatal(err)
	}
	if snap, ok, err := s.LatestSnapshot(ctx, "old"); err != nil || !ok || string(snap.Data) != "state" {
		t.Fatalf("snapshot after migrating: %+v, %v, %v", snap, ok, err)
	}
	if err := s.OpenApproval(ctx, Approval{ID: "old/1", SessionID: "old", Number: 1, Tool: "write_file"}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.PendingApprovals(ctx, "old"); err != nil || len(p) != 1 {
		t.Fatalf("pending after migrating: %+v, %v", p, err)
	}
	if err := s.Append(ctx, note("old", 6)); err != nil {
		t.Fatal(err)
	}
}
