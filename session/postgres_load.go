package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/moteur/moteur/event"
)

// The reads of a session's log are one statement each, which PostgreSQL
// runs on one snapshot: its last_seq and its rows agree without a
// transaction, in one round trip.

// Load returns a session's events in seq order.
func (s *Postgres) Load(ctx context.Context, sessionID string) ([]event.Event, error) {
	return s.LoadRange(ctx, sessionID, 0, 0)
}

// LoadFrom returns a session's events with Seq > after, in seq order.
func (s *Postgres) LoadFrom(ctx context.Context, sessionID string, after uint64) ([]event.Event, error) {
	return s.LoadRange(ctx, sessionID, after, 0)
}

// LoadRange returns at most limit of a session's events with Seq > after,
// in seq order (limit <= 0: all of them). As with SQLite the page is
// bounded by seq, so that a gap is told from the end of the page.
func (s *Postgres) LoadRange(ctx context.Context, sessionID string, after uint64, limit int) ([]event.Event, error) {
	what := fmt.Sprintf("session %s: load", sessionID)
	// Stored seqs fit in a bigint: beyond, nothing is after.
	after = min(after, math.MaxInt64)
	if limit > 0 && uint64(limit) > math.MaxInt64-after {
		limit = 0
	}
	rows, err := s.pool.Query(ctx, `SELECT s.last_seq, e.seq, e.data FROM sessions s
		LEFT JOIN events e ON e.session_id = s.id AND e.seq > $2
			AND e.seq <= CASE WHEN $3::bigint > 0 THEN least(s.last_seq, $2 + $3::bigint) ELSE s.last_seq END
		WHERE s.id = $1 ORDER BY e.seq`, sessionID, int64(after), int64(max(limit, 0)))
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rows.Close()
	var last uint64
	found := false
	var seqs []uint64
	var datas [][]byte
	var blocks blockCopier
	for rows.Next() {
		var seq *int64 // NULL: the session has no event in the range
		if err := rows.Scan(&last, &seq, nil); err != nil {
			return nil, s.dbErr(what, err)
		}
		if !found {
			found = true
			n := last - min(after, last)
			if limit > 0 {
				n = min(n, uint64(limit))
			}
			seqs, datas = make([]uint64, 0, n), make([][]byte, 0, n)
		}
		if seq == nil {
			continue
		}
		seqs = append(seqs, uint64(*seq))
		datas = append(datas, blocks.copy(rows.RawValues()[2]))
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr(what, err)
	}
	if !found {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if after >= last {
		return []event.Event{}, nil
	}
	end := last
	if limit > 0 && uint64(limit) < last-after {
		end = after + uint64(limit)
	}
	for i, seq := range seqs {
		if want := after + 1 + uint64(i); seq != want {
			return nil, fmt.Errorf("session %s: stored events jump from seq %d to %d: the log has a gap", sessionID, want-1, seq)
		}
	}
	if uint64(len(seqs)) != end-after {
		if end == last {
			return nil, fmt.Errorf("session %s: %d events stored after seq %d, the session ends at seq %d", sessionID, len(seqs), after, last)
		}
		return nil, fmt.Errorf("session %s: %d events stored from seq %d to %d, the session ends at seq %d: the log has a gap",
			sessionID, len(seqs), after+1, end, last)
	}
	return decodeAll(sessionID, seqs, datas)
}

// Info describes a session.
func (s *Postgres) Info(ctx context.Context, sessionID string) (Info, error) {
	info, err := scanInfo(s.pool.QueryRow(ctx, `SELECT `+infoColumns+` FROM sessions WHERE id = $1`, sessionID))
	if errors.Is(err, pgx.ErrNoRows) {
		return Info{}, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return Info{}, s.dbErr(fmt.Sprintf("session %s: info", sessionID), err)
	}
	return info, nil
}

// List returns a page of sessions, most recently updated first, ties by id
// (descending), cut by keyset as with SQLite (see SQLite.List).
func (s *Postgres) List(ctx context.Context, opts ListOptions) (Page, error) {
	limit, err := listLimit(opts.Limit)
	if err != nil {
		return Page{}, err
	}
	var where []string
	var args []any
	if opts.ProjectRoot != "" {
		args = append(args, opts.ProjectRoot)
		where = append(where, fmt.Sprintf("project_root = $%d", len(args)))
	}
	if opts.Cursor != "" {
		c, err := decodeCursor(opts.Cursor)
		if err != nil {
			return Page{}, err
		}
		args = append(args, c.updated, c.id)
		where = append(where, fmt.Sprintf("(updated_at, id) < ($%d, $%d)", len(args)-1, len(args)))
	}
	q := `SELECT ` + infoColumns + ` FROM sessions`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	args = append(args, limit+1)
	q += fmt.Sprintf(` ORDER BY updated_at DESC, id DESC LIMIT $%d`, len(args))
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return Page{}, s.dbErr("list sessions", err)
	}
	defer rows.Close()
	var p Page
	for rows.Next() {
		i, err := scanInfo(rows)
		if err != nil {
			return Page{}, s.dbErr("list sessions", err)
		}
		p.Sessions = append(p.Sessions, i)
	}
	if err := rows.Err(); err != nil {
		return Page{}, s.dbErr("list sessions", err)
	}
	if len(p.Sessions) > limit {
		p.Sessions = p.Sessions[:limit]
		last := p.Sessions[limit-1]
		p.Next = cursor{updated: nanos(last.Updated), id: last.ID}.encode()
	}
	return p, nil
}

// Heads returns the audit heads stored with a session's events (see Store),
// from the covering index events_audit_heads.
func (s *Postgres) Heads(ctx context.Context, sessionID string) ([][]byte, error) {
	what := fmt.Sprintf("session %s: audit heads", sessionID)
	rows, err := s.pool.Query(ctx, `SELECT s.last_seq, e.seq, e.audit_mac FROM sessions s
		LEFT JOIN events e ON e.session_id = s.id WHERE s.id = $1 ORDER BY e.seq`, sessionID)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rows.Close()
	var last uint64
	var heads [][]byte
	found := false
	for rows.Next() {
		var seq *int64
		var mac []byte // a copy; nil for NULL
		if err := rows.Scan(&last, &seq, &mac); err != nil {
			return nil, s.dbErr(what, err)
		}
		if !found {
			found, heads = true, make([][]byte, 0, last)
		}
		if seq == nil {
			continue
		}
		if want := uint64(len(heads)) + 1; uint64(*seq) != want {
			return nil, fmt.Errorf("session %s: stored events jump from seq %d to %d: the log has a gap", sessionID, want-1, *seq)
		}
		heads = append(heads, mac)
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr(what, err)
	}
	if !found {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if uint64(len(heads)) != last {
		return nil, fmt.Errorf("session %s: %d events stored, the session ends at seq %d", sessionID, len(heads), last)
	}
	return heads, nil
}

// Head returns the audit head stored with event seq of a session (see
// Store).
func (s *Postgres) Head(ctx context.Context, sessionID string, seq uint64) ([]byte, error) {
	what := fmt.Sprintf("session %s: audit head of seq %d", sessionID, seq)
	var last uint64
	var stored *int64
	var mac []byte
	err := s.pool.QueryRow(ctx, `SELECT s.last_seq, e.seq, e.audit_mac FROM sessions s
		LEFT JOIN events e ON e.session_id = s.id AND e.seq = $2 WHERE s.id = $1`,
		sessionID, int64(min(seq, math.MaxInt64))).Scan(&last, &stored, &mac)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	if seq == 0 || seq > last {
		return nil, fmt.Errorf("session %s: no event of seq %d (the session ends at seq %d)", sessionID, seq, last)
	}
	if stored == nil {
		return nil, fmt.Errorf("session %s: event seq %d is not stored, the session ends at seq %d: the log has a gap", sessionID, seq, last)
	}
	return mac, nil
}
