package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/session"
)

// The data directory ($MOTEUR_HOME) holds:
//
//	moteur.db                    the session store (SQLite)
//	audit/<session>.jsonl        each session's audit log, a chain keyed with
//	                             the at-rest key (kept outside this
//	                             directory), whose head the store records
//	                             with each event; the session's lease makes
//	                             this process its only writer; never
//	                             deleted by moteur
//	transcripts/<session>.jsonl  each session's persisted events as plain
//	                             JSON lines (what hooks read); a copy of the
//	                             store, rebuilt from it when it lags behind,
//	                             so it is not fsynced
//	checkpoints/                 the content files had before a tool changed
//	                             them, by SHA-256, shared by every session:
//	                             what a rewind restores
//
// Directories are 0700 and files 0600: they hold everything the agents read
// and said.

func auditDir(home string) string { return filepath.Join(home, "audit") }

func auditPath(home, sessionID string) string {
	return filepath.Join(auditDir(home), sessionID+".jsonl")
}

func checkpointDir(home string) string { return filepath.Join(home, "checkpoints") }

func transcriptPath(home, sessionID string) string {
	return filepath.Join(home, "transcripts", sessionID+".jsonl")
}

// openStore opens the session store of home, creating it if needed. The
// store's errors name the database file.
func openStore(ctx context.Context, home string) (*session.SQLite, error) {
	st, err := session.OpenSQLite(ctx, session.SQLiteConfig{Path: session.DefaultPath(home)})
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	return st, nil
}

// openStoredSession opens the store for a command about one stored
// session and checks the session is there: a missing database or session
// is "session ID not found". The caller closes the store.
func openStoredSession(ctx context.Context, home, id string) (*session.SQLite, session.Info, error) {
	st, err := openExistingStore(ctx, home)
	if err != nil {
		return nil, session.Info{}, err
	}
	if st == nil {
		return nil, session.Info{}, errSessionNotFound(id)
	}
	info, err := st.Info(ctx, id)
	if err != nil {
		st.Close()
		return nil, session.Info{}, notFound(id, err)
	}
	return st, info, nil
}

// openExistingStore is openStore for the commands that only read or remove:
// where there is no database yet nothing is stored, so it returns a nil
// store rather than creating one.
func openExistingStore(ctx context.Context, home string) (*session.SQLite, error) {
	if _, err := os.Stat(session.DefaultPath(home)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return openStore(ctx, home)
}

// errSessionNotFound is the message for an id the store does not know.
func errSessionNotFound(id string) error {
	return fmt.Errorf("session %s not found", id)
}

// liveSession is a session opened for new turns by this process: the store,
// the session's lease (held until close), the events stored before and the
// sinks of the new ones.
type liveSession struct {
	id         string
	store      *session.SQLite
	lease      session.Lease
	past       []event.Event
	audit      *event.AuditSink
	auditNew   bool // this process created the audit log
	auditFile  string
	transcript *event.JSONLSink
	// anchor, when MOTEUR_AUDIT_SYSLOG asks for one, gets each head.
	anchor *event.SyslogAnchor
	// warning is something the user should know before the turn runs.
	warning string
}

// openLiveSession opens session id for turns in home: it takes the lease,
// so that no other process writes the session meanwhile, loads its stored
// events (none for a new session), and opens its audit log — verified, all
// of it, against the heads the store holds (see the audit log's format in
// event/audit.go) — and its transcript. A session whose log is missing,
// shorter or longer than the store, replaced, or broken anywhere is
// refused, with what to do. The one record a crash between the audit log
// and the store can leave is stored first (a warning says so); nothing else
// is written to the session yet.
func (c *cli) openLiveSession(ctx context.Context, home, id string) (_ *liveSession, err error) {
	// Commands that continue a session write its audit log: they make the
	// key on first use, and refuse a data directory whose key is gone.
	key, err := c.atRestKey(home, true)
	if err != nil {
		return nil, err
	}
	st, err := openStore(ctx, home)
	if err != nil {
		return nil, err
	}
	ls := &liveSession{id: id, store: st, auditFile: auditPath(home, id)}
	defer func() {
		if err != nil {
			err = errors.Join(err, ls.abandon())
		}
	}()
	// The lease before anything is read: what is loaded is then what the
	// next Append continues.
	if ls.lease, err = st.Acquire(ctx, id); err != nil {
		return nil, err
	}
	ls.past, err = st.Load(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		ls.past, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	stored, err := storedAudit(ctx, st, id)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(ls.auditFile)
	ls.auditNew = errors.Is(statErr, fs.ErrNotExist)
	// A fork's copied events are in its source's audit log: its own log
	// starts with its first event of its own.
	if ls.auditNew && stored != nil && uint64(len(stored.Heads)) > stored.First {
		return nil, fmt.Errorf("session %s: its audit log %s is missing, but the store holds %d events of it: the log was deleted or moved, and the session is not continued without it (put it back; moteur audit verify %s checks it)",
			id, ls.auditFile, uint64(len(stored.Heads))-stored.First, id)
	}
	var anchor event.AuditAnchor
	if ls.anchor, err = c.auditAnchor(); err != nil {
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
		return nil, fmt.Errorf("session %s: %w (if a power loss tore it: moteur audit repair %s)", id, err, ls.auditFile)
	case err != nil:
		return nil, fmt.Errorf("session %s: %w; the session is not continued (moteur audit verify %s)", id, err, id)
	}
	for _, r := range ls.audit.Unstored() {
		// The log is written first: its record of an event the store
		// never got (a crash between the two) is stored now, with its
		// head, so that the two agree again.
		if err := st.AppendWithHeads(ctx, []event.Event{r.Event}, [][]byte{r.MAC}); err != nil {
			return nil, fmt.Errorf("session %s: store the event seq %d its audit log recorded: %w", id, r.Event.Seq, err)
		}
		ls.past = append(ls.past, r.Event)
		ls.warning = fmt.Sprintf("session %s: stored event seq %d (%s) from the audit log, which recorded it before the previous process stopped",
			id, r.Event.Seq, r.Event.Type)
	}
	tpath := transcriptPath(home, id)
	if err := syncTranscript(tpath, ls.past); err != nil {
		return nil, fmt.Errorf("session %s: transcript: %w", id, err)
	}
	if ls.transcript, err = event.OpenJSONL(event.JSONLConfig{Path: tpath}); err != nil {
		return nil, fmt.Errorf("session %s: transcript: %w", id, err)
	}
	return ls, nil
}

// storedAudit is what the store holds of session id's audit log: a head per
// event, and where the log starts (a fork's, at its fork seq). It is nil
// for a session the store does not have.
func storedAudit(ctx context.Context, st session.Store, id string) (*event.AuditStore, error) {
	info, err := st.Info(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	heads, err := st.Heads(ctx, id)
	if err != nil {
		return nil, err
	}
	first := uint64(0)
	if info.ParentID != "" {
		first = info.ForkSeq
	}
	return &event.AuditStore{Heads: heads, First: first}, nil
}

// auditAnchor is the copy of the audit heads MOTEUR_AUDIT_SYSLOG asks for,
// off the data directory: unset, "" or "off" for none (the default); "on"
// for the local syslog (/dev/log, which journald reads); NETWORK:ADDRESS
// (unixgram:/path, udp:host:514, tcp:host:514) for another. Once asked for,
// a head that cannot be sent stops the turn, as the log's own failure does.
func (c *cli) auditAnchor() (*event.SyslogAnchor, error) {
	v := c.env("MOTEUR_AUDIT_SYSLOG")
	switch v {
	case "", "off":
		return nil, nil
	case "on":
		return event.DialSyslogAnchor("", "")
	}
	network, addr, ok := strings.Cut(v, ":")
	if !ok || addr == "" {
		return nil, fmt.Errorf("MOTEUR_AUDIT_SYSLOG=%q: want on, off, or NETWORK:ADDRESS (unixgram:/dev/log, udp:host:514)", v)
	}
	return event.DialSyslogAnchor(network, addr)
}

// atRestKey loads the at-rest key of home (loadKey) under the organisation
// policy the environment names.
func (c *cli) atRestKey(home string, create bool) (*atrest.Key, error) {
	path, explicit := orgpolicy.PathFromEnv(c.env)
	pol, err := orgpolicy.Load(path, explicit)
	if err != nil {
		return nil, err
	}
	return loadKey(c.env, pol, home, create)
}

// sinks are the engine's sinks, the audit log first (DESIGN.md): nothing
// reaches the store or the transcript that the audit log did not record,
// and the store keeps, with each event, the head of the chain the audit
// log gives it.
func (ls *liveSession) sinks() []event.Sink {
	return []event.Sink{ls.audit, session.Sink{Store: ls.store, Heads: ls.audit}, ls.transcript}
}

// close closes the sinks, releases the lease and closes the store.
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
	if ls.anchor != nil {
		_ = ls.anchor.Close() // every head was sent by the Write that wrote it
	}
	if ls.lease != nil {
		if err := ls.lease.Release(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := ls.store.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// abandon closes a session to which nothing was written, removing the audit
// log this process created for it (it holds no record).
func (ls *liveSession) abandon() error {
	err := ls.close()
	if ls.auditNew {
		if st, serr := os.Stat(ls.auditFile); serr == nil && st.Size() == 0 {
			_ = os.Remove(ls.auditFile)
		}
	}
	return err
}

// syncTranscript makes the transcript at path hold exactly the stored
// events before new ones are appended to it. It is written after the store,
// so a crash can leave it behind (an event, a torn line); it is also a plain
// file anyone may edit. When its size is not that of the stored events'
// encoding it is rewritten from them, atomically (a temporary file renamed
// over it).
func syncTranscript(path string, past []event.Event) error {
	var want bytes.Buffer
	for _, e := range past {
		b, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode event %d: %w", e.Seq, err)
		}
		want.Write(b)
		want.WriteByte('\n')
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.Size() == int64(want.Len()):
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	case err != nil && want.Len() == 0:
		// New session: OpenJSONL creates the file.
		return os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(path, want.Bytes())
}

// writeFileAtomic replaces path with data (mode 0600): readers see the old
// content or the new, never a mix.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
