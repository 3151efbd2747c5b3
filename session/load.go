package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/moteur/moteur/event"
)

// Load returns a session's events in seq order.
func (s *SQLite) Load(ctx context.Context, sessionID string) ([]event.Event, error) {
	return s.LoadFrom(ctx, sessionID, 0)
}

// LoadFrom returns a session's events with Seq > after, in seq order.
func (s *SQLite) LoadFrom(ctx context.Context, sessionID string, after uint64) ([]event.Event, error) {
	return s.LoadRange(ctx, sessionID, after, 0)
}

// LoadRange returns at most limit of a session's events with Seq > after,
// in seq order (limit <= 0: all of them). The page is bounded by seq, not
// by LIMIT, so that its expected length is known and a gap is told from
// the end of the page.
func (s *SQLite) LoadRange(ctx context.Context, sessionID string, after uint64, limit int) ([]event.Event, error) {
	what := fmt.Sprintf("session %s: load", sessionID)
	tx, last, err := s.readLastSeq(ctx, what, sessionID)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if after >= last {
		return []event.Event{}, nil
	}
	end := last
	if limit > 0 && uint64(limit) < last-after {
		end = after + uint64(limit)
	}
	rows, err := tx.QueryContext(ctx, `SELECT seq, data FROM events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
		sessionID, after, end)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rows.Close()
	// Copy the rows out first, then decode them (in parallel when there
	// are many): decoding is most of the cost of a Load.
	seqs := make([]uint64, 0, end-after)
	datas := make([][]byte, 0, end-after)
	var blocks blockCopier
	for rows.Next() {
		var seq uint64
		var data sql.RawBytes
		if err := rows.Scan(&seq, &data); err != nil {
			return nil, s.dbErr(what, err)
		}
		seqs = append(seqs, seq)
		datas = append(datas, blocks.copy(data))
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr(what, err)
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

// readLastSeq begins the read transaction of a query over a session's
// events, so that its last_seq and its rows are of one snapshot, and reads
// last_seq. The caller rolls tx back. An unknown id is ErrNotFound.
func (s *SQLite) readLastSeq(ctx context.Context, what, sessionID string) (tx *sql.Tx, last uint64, err error) {
	tx, err = s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, s.dbErr(what, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT last_seq FROM sessions WHERE id = ?`, sessionID).Scan(&last); err != nil {
		tx.Rollback()
		if errors.Is(err, sql.ErrNoRows) {
			return nil, 0, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
		}
		return nil, 0, s.dbErr(what, err)
	}
	return tx, last, nil
}

// Blocks a blockCopier copies into start at firstBlock and double up to
// blockSize: few allocations, none of them growing, and a short load (a
// turn's catch-up) does not pay for a long one's.
const (
	firstBlock = 4 << 10
	blockSize  = 256 << 10
)

// blockCopier copies the bytes of rows (sql.RawBytes, valid only until the
// next Scan) into shared blocks of blockSize, rather than one allocation
// per row.
type blockCopier struct{ block []byte }

// copy returns a copy of b, capped so that appending to it cannot reach
// the next copy.
func (c *blockCopier) copy(b []byte) []byte {
	if len(c.block)+len(b) > cap(c.block) {
		c.block = make([]byte, 0, max(len(b), min(blockSize, max(firstBlock, 2*cap(c.block)))))
	}
	start := len(c.block)
	c.block = append(c.block, b...)
	return c.block[start:len(c.block):len(c.block)]
}

// parallelDecode is the number of events from which decodeAll uses every
// CPU.
const parallelDecode = 256

// decodeAll decodes stored events. An error names the lowest seq that does
// not decode.
func decodeAll(sessionID string, seqs []uint64, datas [][]byte) ([]event.Event, error) {
	out := make([]event.Event, len(seqs))
	errs := make([]error, len(seqs))
	decode := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i], errs[i] = decodeStored(sessionID, seqs[i], datas[i])
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(seqs)/parallelDecode)
	if workers <= 1 {
		decode(0, len(seqs))
	} else {
		var wg sync.WaitGroup
		chunk := (len(seqs) + workers - 1) / workers
		for lo := 0; lo < len(seqs); lo += chunk {
			wg.Go(func() { decode(lo, min(lo+chunk, len(seqs))) })
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decodeStored decodes a stored event and checks that it is the row it is
// stored as.
func decodeStored(sessionID string, seq uint64, data []byte) (event.Event, error) {
	// event.Decode is json.Unmarshal into an Event: a first pass that
	// validates the bytes, then Event.UnmarshalJSON, which validates them
	// again. Calling UnmarshalJSON alone saves the first pass, and fails
	// on the same inputs.
	var e event.Event
	if err := e.UnmarshalJSON(data); err != nil {
		return e, fmt.Errorf("session %s: stored event seq %d does not decode: %w", sessionID, seq, err)
	}
	if e.Seq != seq || e.SessionID != sessionID {
		return e, fmt.Errorf("session %s: stored event seq %d reads as session %q seq %d", sessionID, seq, e.SessionID, e.Seq)
	}
	return e, nil
}

// Info describes a session.
func (s *SQLite) Info(ctx context.Context, sessionID string) (Info, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+infoColumns+` FROM sessions WHERE id = ?`, sessionID)
	info, err := scanInfo(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Info{}, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return Info{}, s.dbErr(fmt.Sprintf("session %s: info", sessionID), err)
	}
	return info, nil
}

const infoColumns = `id, title, project_root, agent, parent_id, fork_seq, created_at, updated_at, events, last_seq`

// scanInfo reads the infoColumns of a row.
func scanInfo(row interface{ Scan(...any) error }) (Info, error) {
	var i Info
	var created, updated int64
	err := row.Scan(&i.ID, &i.Title, &i.ProjectRoot, &i.Agent, &i.ParentID, &i.ForkSeq, &created, &updated, &i.Events, &i.LastSeq)
	i.Created, i.Updated = fromNanos(created), fromNanos(updated)
	return i, err
}

// Heads returns the audit heads stored with a session's events (see Store).
func (s *SQLite) Heads(ctx context.Context, sessionID string) ([][]byte, error) {
	what := fmt.Sprintf("session %s: audit heads", sessionID)
	tx, last, err := s.readLastSeq(ctx, what, sessionID)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT seq, audit_mac FROM events INDEXED BY events_audit_heads WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	defer rows.Close()
	heads := make([][]byte, 0, last)
	var blocks blockCopier // one allocation per few thousand heads
	for rows.Next() {
		var seq uint64
		var mac sql.RawBytes
		if err := rows.Scan(&seq, &mac); err != nil {
			return nil, s.dbErr(what, err)
		}
		if want := uint64(len(heads)) + 1; seq != want {
			return nil, fmt.Errorf("session %s: stored events jump from seq %d to %d: the log has a gap", sessionID, want-1, seq)
		}
		if mac == nil {
			heads = append(heads, nil)
			continue
		}
		heads = append(heads, blocks.copy(mac))
	}
	if err := rows.Err(); err != nil {
		return nil, s.dbErr(what, err)
	}
	if uint64(len(heads)) != last {
		return nil, fmt.Errorf("session %s: %d events stored, the session ends at seq %d", sessionID, len(heads), last)
	}
	return heads, nil
}

// Head returns the audit head stored with event seq of a session (see
// Store).
func (s *SQLite) Head(ctx context.Context, sessionID string, seq uint64) ([]byte, error) {
	what := fmt.Sprintf("session %s: audit head of seq %d", sessionID, seq)
	tx, last, err := s.readLastSeq(ctx, what, sessionID)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if seq == 0 || seq > last {
		return nil, fmt.Errorf("session %s: no event of seq %d (the session ends at seq %d)", sessionID, seq, last)
	}
	var mac []byte
	err = tx.QueryRowContext(ctx, `SELECT audit_mac FROM events INDEXED BY events_audit_heads WHERE session_id = ? AND seq = ?`,
		sessionID, seq).Scan(&mac)
	if err != nil {
		return nil, s.dbErr(what, err)
	}
	return mac, nil
}
