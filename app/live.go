package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/session"
)

// liveSession is a session opened for new events by this process: the
// store, the session's lease (held until close) and the sinks of the new
// events.
type liveSession struct {
	store    session.Store
	ownStore bool // opened by the session, closed with it
	lease    session.Lease
	// lastSeq is the seq of the last stored event once the session was
	// open (0: a new session).
	lastSeq    uint64
	audit      *event.AuditSink
	auditNew   bool // this process created the audit log
	auditFile  string
	transcript *event.JSONLSink
	// anchor, when MOTEUR_AUDIT_SYSLOG asks for one, gets each head.
	anchor *event.SyslogAnchor
	// warnings are what the user should know before anything runs.
	warnings []string
}

// openLiveSession opens session id of the database db for new
// events: it takes the lease, so that no other process writes the session
// meanwhile, and opens its audit log — verified, all of it, against the
// heads the store holds (see the audit log's format in event/audit.go) —
// and its transcript, caught up with the store. A session whose log is
// missing, shorter or longer than the store, replaced, or broken anywhere
// is refused, with what to do. The one record a crash between the audit log
// and the store can leave is stored first (a warning says so); nothing else
// is written to the session yet. The session's past events are not read:
// whoever needs them loads them from the store.
//
// shared is the data directory's store when the caller keeps one open
// (nil: the session opens its own and closes it with itself).
func openLiveSession(ctx context.Context, env func(string) string, db Database, id string, shared session.Store, lang i18n.Lang) (_ *liveSession, err error) {
	home := db.Home
	// Whatever opens a session writes its audit log: it makes the key on
	// first use, and refuses a data directory whose key is gone.
	key, err := atRestKey(env, home, true, lang)
	if err != nil {
		return nil, err
	}
	st, ownStore := shared, false
	if st == nil {
		if st, err = db.OpenStore(ctx); err != nil {
			return nil, err
		}
		ownStore = true
	}
	ls := &liveSession{store: st, ownStore: ownStore, auditFile: AuditPath(home, id)}
	defer func() {
		if err != nil {
			err = errors.Join(err, ls.close())
		}
	}()
	// The lease before anything is read: what is read is then what the
	// next Append continues.
	if ls.lease, err = st.Acquire(ctx, id); err != nil {
		return nil, err
	}
	stored, err := continuedAudit(ctx, st, id)
	if err != nil {
		return nil, err
	}
	if stored != nil {
		ls.lastSeq = uint64(len(stored.Heads))
	}
	_, statErr := os.Stat(ls.auditFile)
	ls.auditNew = errors.Is(statErr, fs.ErrNotExist)
	// A fork's copied events are in its source's audit log: its own log
	// starts with its first event of its own.
	if ls.auditNew && stored != nil && ls.lastSeq > stored.First {
		return nil, errors.New(i18n.Trf(lang, "session %s: its audit log %s is missing, but the store holds %d events of it: the log was deleted or moved, "+
			"and the session is not continued without it (put it back; moteur audit verify %s checks it)",
			id, ls.auditFile, ls.lastSeq-stored.First, id))
	}
	var anchor event.AuditAnchor
	if ls.anchor, err = auditAnchor(env, lang); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	} else if ls.anchor != nil {
		anchor = ls.anchor
	}
	// Every record is fsynced: the store fsyncs every event, and the audit
	// log, written first, must not be the one a power loss cuts shorter.
	ls.audit, err = event.OpenAudit(event.AuditConfig{Path: ls.auditFile, Key: key.Subkey(atrest.PurposeAudit),
		SessionID: id, Store: stored, SyncEvery: true, Anchor: anchor})
	switch {
	case errors.Is(err, event.ErrAuditTorn):
		return nil, fmt.Errorf(i18n.Tr(lang, "session %s: %w (if a power loss tore it: moteur audit repair %s)"), id, err, ls.auditFile)
	case err != nil:
		return nil, fmt.Errorf(i18n.Tr(lang, "session %s: %w; the session is not continued (moteur audit verify %s)"), id, err, id)
	}
	for _, r := range ls.audit.Unstored() {
		// The log is written first: its record of an event the store
		// never got (a crash between the two) is stored now, with its
		// head, so that the two agree again.
		if err := st.AppendWithHeads(ctx, []event.Event{r.Event}, [][]byte{r.MAC}); err != nil {
			return nil, fmt.Errorf(i18n.Tr(lang, "session %s: store the event seq %d its audit log recorded: %w"), id, r.Event.Seq, err)
		}
		ls.lastSeq = r.Event.Seq
		ls.warnings = append(ls.warnings, i18n.Trf(lang, "session %s: stored event seq %d (%s) from the audit log, which recorded it before the previous process stopped",
			id, r.Event.Seq, r.Event.Type))
	}
	tpath := TranscriptPath(home, id)
	warning, err := catchUpTranscript(ctx, tpath, id, ls.lastSeq, st, lang)
	if err != nil {
		return nil, fmt.Errorf("session %s: transcript: %w", id, err)
	}
	if warning != "" {
		ls.warnings = append(ls.warnings, warning)
	}
	if ls.transcript, err = event.OpenJSONL(event.JSONLConfig{Path: tpath}); err != nil {
		return nil, fmt.Errorf("session %s: transcript: %w", id, err)
	}
	return ls, nil
}

// sinks are the engine's sinks, the audit log first (DESIGN.md): nothing
// reaches the store or the transcript that the audit log did not record,
// and the store keeps, with each event, the head of the chain the audit
// log gives it.
func (ls *liveSession) sinks() []event.Sink {
	return []event.Sink{ls.audit, session.Sink{Store: ls.store, Heads: ls.audit}, ls.transcript}
}

// close closes the sinks, removes the audit log this process created if
// it holds no record (nothing was written to the session), then releases
// the lease and closes the store: the empty log is gone before another
// process may open the session.
func (ls *liveSession) close() error {
	var errs []error
	if ls.transcript != nil {
		if err := ls.transcript.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close transcript: %w", err))
		}
	}
	if ls.audit != nil {
		if err := ls.audit.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close audit log: %w", err))
		}
	}
	if ls.auditNew {
		if st, err := os.Stat(ls.auditFile); err == nil && st.Size() == 0 {
			_ = os.Remove(ls.auditFile)
		}
	}
	if ls.anchor != nil {
		_ = ls.anchor.Close() // every head was sent by the Write that wrote it
	}
	if ls.lease != nil {
		if err := ls.lease.Release(); err != nil {
			errs = append(errs, err)
		}
	}
	if ls.ownStore {
		if err := ls.store.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
