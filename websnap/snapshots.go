package websnap

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/moteur/moteur/redact"
	"github.com/moteur/moteur/sidetable"
	"github.com/moteur/moteur/tools/web"
)

// pathScheme starts every snapshot path (web://HOST/ID.md).
const pathScheme = "web://"

// sessionSnapshots is one session's web.Snapshots.
type sessionSnapshots struct {
	s  *Store
	id string
}

// Put implements web.Snapshots: it stores snap masked — the text with
// redact.Lines, which keeps its lines where read_file numbers them, the
// URLs and the title with redact.String — replacing the session's snapshot
// of the same path, which becomes the newest, then drops the oldest past
// the cap.
func (ss *sessionSnapshots) Put(ctx context.Context, snap web.Snapshot) error {
	if err := ss.check(snap.Path); err != nil {
		return fmt.Errorf("put web snapshot: %w", err)
	}
	db, err := ss.s.handle(ctx)
	if err != nil {
		return fmt.Errorf("put web snapshot %s: %w", snap.Path, err)
	}
	text, _ := redact.Lines(snap.Text)
	u, _ := redact.String(snap.URL)
	final, _ := redact.String(snap.FinalURL)
	title, _ := redact.String(snap.Title)
	var fetched int64
	if !snap.Fetched.IsZero() {
		fetched = snap.Fetched.UTC().UnixNano()
	}
	stored := ss.s.now().UTC().UnixNano()
	err = db.Write(ctx, func(tx sidetable.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_snapshots WHERE session_id = ? AND path = ?`, ss.id, snap.Path); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO web_snapshots
			(session_id, path, url, final_url, title, format, text, truncated, fetched_at, stored_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ss.id, snap.Path, u, final, title, snap.Format, text, snap.Truncated, fetched, stored); err != nil {
			return err
		}
		// Every row of the session older than the max newest ones.
		_, err := tx.ExecContext(ctx, `DELETE FROM web_snapshots WHERE session_id = ? AND seq <= (
			SELECT seq FROM web_snapshots WHERE session_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`, ss.id, ss.id, ss.s.max)
		return err
	})
	if err != nil {
		return fmt.Errorf("put web snapshot %s of session %s in %s: %w", snap.Path, ss.id, db.Name, err)
	}
	return nil
}

// Get implements web.Snapshots: a path the session does not hold (never
// put, dropped by the cap, removed with the session) is an error wrapping
// web.ErrNoSnapshot.
func (ss *sessionSnapshots) Get(ctx context.Context, path string) (web.Snapshot, error) {
	if err := ss.check(path); err != nil {
		return web.Snapshot{}, fmt.Errorf("get web snapshot: %w", err)
	}
	db, err := ss.s.handle(ctx)
	if err != nil {
		return web.Snapshot{}, fmt.Errorf("get web snapshot %s: %w", path, err)
	}
	snap := web.Snapshot{Path: path}
	var fetched int64
	err = db.QueryRowContext(ctx, `SELECT url, final_url, title, format, text, truncated, fetched_at
		FROM web_snapshots WHERE session_id = ? AND path = ?`, ss.id, path).
		Scan(&snap.URL, &snap.FinalURL, &snap.Title, &snap.Format, &snap.Text, &snap.Truncated, &fetched)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return web.Snapshot{}, fmt.Errorf("web snapshot %s of session %s: %w", path, ss.id, web.ErrNoSnapshot)
	case err != nil:
		return web.Snapshot{}, fmt.Errorf("get web snapshot %s of session %s in %s: %w", path, ss.id, db.Name, err)
	}
	if fetched != 0 {
		snap.Fetched = time.Unix(0, fetched).UTC()
	}
	return snap, nil
}

// check refuses what no snapshot is stored under, before the file is
// opened for it.
func (ss *sessionSnapshots) check(path string) error {
	if ss.id == "" {
		return errors.New("no session id")
	}
	if !strings.HasPrefix(path, pathScheme) || len(path) == len(pathScheme) {
		return fmt.Errorf("path %q is not a web:// snapshot path", path)
	}
	return nil
}
