package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRangeGap: a page is checked as a whole Load is: a seq missing
// from it is an error, be it inside the page or at its end, and an event
// that does not decode is named; pages that miss nothing still load.
func TestLoadRangeGap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, path)
	ctx := context.Background()
	if err := s.Append(ctx, notes("gap", 1, 10)...); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if _, err := db.Exec(`DELETE FROM events WHERE session_id = 'gap' AND seq = 5`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		after uint64
		limit int
		want  string
	}{
		{0, 5, "session gap: 4 events stored from seq 1 to 5, the session ends at seq 10: the log has a gap"},
		{2, 4, "session gap: stored events jump from seq 4 to 6: the log has a gap"},
		{4, 0, "session gap: stored events jump from seq 4 to 6: the log has a gap"},
	} {
		_, err := s.LoadRange(ctx, "gap", c.after, c.limit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadRange(%d, %d): %v, want %q", c.after, c.limit, err, c.want)
		}
	}
	for _, c := range []struct {
		after uint64
		limit int
	}{{0, 4}, {5, 2}, {5, 0}} {
		if _, err := s.LoadRange(ctx, "gap", c.after, c.limit); err != nil {
			t.Errorf("LoadRange(%d, %d) misses nothing: %v", c.after, c.limit, err)
		}
	}
	if _, err := db.Exec(`UPDATE events SET data = '{' WHERE session_id = 'gap' AND seq = 7`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LoadRange(ctx, "gap", 5, 3); err == nil || !strings.Contains(err.Error(), "session gap: stored event seq 7 does not decode") {
		t.Errorf("a page with an undecodable event: %v", err)
	}
	if _, err := s.LoadRange(ctx, "gap", 7, 3); err != nil {
		t.Errorf("a page after the undecodable event: %v", err)
	}
}
