package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// MigrateReport is what MigrateDatabase did.
type MigrateReport struct {
	// Sessions counts the sessions the target holds whole after the run;
	// Copied those it had to copy (in full or the rest of), Skipped those
	// it had already.
	Sessions, Copied, Skipped int
	// Events counts the events copied.
	Events int
	// AuditVerified counts the sessions whose audit log (in the data
	// directory) verified against the heads now in the target.
	AuditVerified int
	// Agents and Keys count the custom agents and API keys copied.
	Agents, Keys int
}

// MigrateProgress is called after each session, with the report so far and
// the count of sessions to copy.
type MigrateProgress func(r MigrateReport, total int)

// migrateBatch bounds the events of one append to the target.
const migrateBatch = 500

// MigrateDatabase copies the sessions (their events and audit heads, their
// fork origins and latest snapshot), the custom agents and the API keys of
// from into to, then checks that to holds every session whole — the same
// count of events and the same audit head for each — and verifies each
// session's audit log of the data directory against the heads in to. It
// is resumable: a session to holds whole is skipped, one it holds the
// start of gets the rest, agents and keys it has are kept. A session of to
// that is longer than from's, or whose heads differ, is an error naming
// it: nothing of it is written. Pending permission requests are not
// copied: the turns that asked them are gone. Knowledge bases are not
// copied: they stay in the SQLite file (Database.KBPath).
func MigrateDatabase(ctx context.Context, env func(string) string, from, to Database, progress MigrateProgress) (MigrateReport, error) {
	var rep MigrateReport
	src, err := from.OpenExistingStore(ctx)
	if err != nil {
		return rep, err
	}
	if src == nil {
		return rep, fmt.Errorf("nothing to migrate: %s does not exist", from.file())
	}
	defer src.Close()
	dst, err := to.OpenStore(ctx)
	if err != nil {
		return rep, err
	}
	defer dst.Close()
	infos, err := allSessions(ctx, src)
	if err != nil {
		return rep, err
	}
	m := &migration{src: src, dst: dst, infos: map[string]session.Info{}, done: map[string]bool{}, rep: &rep}
	for _, in := range infos {
		m.infos[in.ID] = in
	}
	for _, in := range infos {
		if err := m.session(ctx, in.ID); err != nil {
			return rep, err
		}
		if progress != nil {
			progress(rep, len(infos))
		}
	}
	if err := m.verifyAudit(ctx, env, from.Home); err != nil {
		return rep, err
	}
	if rep.Agents, rep.Keys, err = migrateSideTables(ctx, from, to); err != nil {
		return rep, err
	}
	return rep, nil
}

// allSessions lists every session of st, of every project.
func allSessions(ctx context.Context, st session.Store) ([]session.Info, error) {
	var all []session.Info
	for cursor := ""; ; {
		page, err := st.List(ctx, session.ListOptions{Limit: 1000, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		all = append(all, page.Sessions...)
		if cursor = page.Next; cursor == "" {
			return all, nil
		}
	}
}

// migration copies sessions from src to dst, each once, a fork's source
// first.
type migration struct {
	src, dst session.Store
	infos    map[string]session.Info
	done     map[string]bool
	rep      *MigrateReport
}

func (m *migration) session(ctx context.Context, id string) error {
	if m.done[id] {
		return nil
	}
	m.done[id] = true
	in := m.infos[id]
	var have uint64
	forked := false
	switch d, err := m.dst.Info(ctx, id); {
	case errors.Is(err, session.ErrNotFound):
		// A fork whose source is gone is copied whole, as a session of
		// its own.
		if _, ok := m.infos[in.ParentID]; in.ParentID != "" && ok {
			if err := m.fork(ctx, in); err != nil {
				return err
			}
			have, forked = in.ForkSeq, true
		}
	case err != nil:
		return fmt.Errorf("session %s in the target: %w", id, err)
	default:
		have = d.LastSeq
	}
	if have > in.LastSeq {
		return fmt.Errorf("session %s: the target holds %d events, the source %d: it is another session; remove one of them", id, have, in.LastSeq)
	}
	if err := m.sameHeads(ctx, id, have); err != nil {
		return err
	}
	switch {
	case have < in.LastSeq:
		if err := m.copyFrom(ctx, id, have); err != nil {
			return err
		}
	case forked:
		m.rep.Copied++
	default:
		m.rep.Skipped++
	}
	m.rep.Sessions++
	return m.snapshot(ctx, id)
}

// fork makes a fork in dst as in src: its source copied first, then
// forked at the same seq (the copied events are the source's).
func (m *migration) fork(ctx context.Context, in session.Info) error {
	if err := m.session(ctx, in.ParentID); err != nil {
		return err
	}
	if _, err := m.dst.Fork(ctx, in.ParentID, in.ForkSeq, in.ID); err != nil {
		return fmt.Errorf("session %s, a fork of %s at seq %d: %w", in.ID, in.ParentID, in.ForkSeq, err)
	}
	return nil
}

// sameHeads checks that the first n events of id in dst have src's audit
// heads: then they are the same events, and the rest may follow them.
func (m *migration) sameHeads(ctx context.Context, id string, n uint64) error {
	if n == 0 {
		return nil
	}
	a, err := m.src.Head(ctx, id, n)
	if err != nil {
		return err
	}
	b, err := m.dst.Head(ctx, id, n)
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("session %s: the target's event %d has another audit head than the source's: it is another session; remove one of them", id, n)
	}
	return nil
}

// copyFrom appends the events of id after seq have, with their heads.
func (m *migration) copyFrom(ctx context.Context, id string, have uint64) error {
	heads, err := m.src.Heads(ctx, id)
	if err != nil {
		return err
	}
	for after := have; ; {
		evs, err := m.src.LoadRange(ctx, id, after, migrateBatch)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			break
		}
		hs := make([][]byte, len(evs))
		for i, e := range evs {
			hs[i] = heads[e.Seq-1]
		}
		if err := m.dst.AppendWithHeads(ctx, evs, hs); err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
		m.rep.Events += len(evs)
		after = evs[len(evs)-1].Seq
	}
	m.rep.Copied++
	return nil
}

// snapshot copies the latest snapshot of id when dst has none: a cache,
// but one that spares the next turn a full replay.
func (m *migration) snapshot(ctx context.Context, id string) error {
	if _, ok, err := m.dst.LatestSnapshot(ctx, id); err != nil || ok {
		return err
	}
	snap, ok, err := m.src.LatestSnapshot(ctx, id)
	if err != nil || !ok {
		return err
	}
	return m.dst.SaveSnapshot(ctx, id, snap)
}

// verifyAudit checks every session against dst: the same count and last
// seq as src, and its audit log in home, when it has one, verified against
// the heads dst now holds.
func (m *migration) verifyAudit(ctx context.Context, env func(string) string, home string) error {
	var key []byte
	if k, err := AtRestKey(env, home, false); err == nil {
		key = k.Subkey(atrest.PurposeAudit)
	}
	for id, in := range m.infos {
		got, err := m.dst.Info(ctx, id)
		if err != nil {
			return fmt.Errorf("verify session %s in the target: %w", id, err)
		}
		if got.LastSeq != in.LastSeq || got.Events != in.Events {
			return fmt.Errorf("verify session %s: the target holds %d events up to seq %d, the source %d up to %d", id, got.Events, got.LastSeq, in.Events, in.LastSeq)
		}
		path := AuditPath(home, id)
		if _, err := os.Stat(path); err != nil {
			continue // no log here (made elsewhere, or removed): the heads were compared
		}
		stored, err := StoredAudit(ctx, m.dst, id)
		if err != nil {
			return err
		}
		// A log a record ahead of the store (a crash between the two) is
		// whole: the next open of the session stores that record.
		if _, err := event.VerifyAuditFile(path, event.AuditCheck{Key: key, SessionID: id, Store: stored}); err != nil && !errors.Is(err, event.ErrAuditAhead) {
			return fmt.Errorf("verify session %s against its audit log: %w", id, err)
		}
		m.rep.AuditVerified++
	}
	return nil
}

// migrateSideTables copies the custom agents and the API keys.
func migrateSideTables(ctx context.Context, from, to Database) (agents, keys int, err error) {
	fa, err := from.Agents(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer fa.Close()
	ta, err := to.Agents(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer ta.Close()
	if agents, err = fa.CopyTo(ctx, ta); err != nil {
		return 0, 0, err
	}
	fk, err := from.Keys(ctx)
	if err != nil {
		return agents, 0, err
	}
	defer fk.Close()
	tk, err := to.Keys(ctx)
	if err != nil {
		return agents, 0, err
	}
	defer tk.Close()
	keys, err = fk.CopyTo(ctx, tk)
	return agents, keys, err
}
