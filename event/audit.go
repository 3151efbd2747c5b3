package event

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// The audit log of a session is an append-only JSONL file whose records form
// a keyed chain, so that a flipped byte, a deleted, duplicated or reordered
// record, an edited event, a torn end — and, compared with the heads the
// session store keeps, a log cut short, rolled back, emptied, replaced or
// rewritten without the key — is detected (VerifyAudit). Each line is one
// record, written as exactly these bytes:
//
//	{"index":N,"prev":"P","event":E,"mac":"M"}\n
//
//   - N: the record's place in the session's chain, which is its event's
//     seq − 1, in decimal without leading zeros. A log starts at 0, except
//     a fork's (see below);
//   - P: the M of the previous record; for the first record of a session,
//     64 '0';
//   - E: the event, masked (MaskEvent: the log never holds a secret), as
//     json.Marshal encodes it: compact, no blank between tokens, HTML
//     characters escaped (\u003c…); it begins {"seq":S,"type":T,
//     "session_id":I, and S is N + 1, I the log's session, in every record;
//   - M: the HMAC-SHA-256, in 64 lower-case hex digits, keyed with the audit
//     subkey of the at-rest key (atrest.Key.Subkey(atrest.PurposeAudit), 32
//     bytes), of the canonical form
//
//     {"index":N,"prev":"P","event":E}
//
//     that is, the line itself without its ',"mac":"M"' member: a verifier
//     in any language takes the line without its end of line, drops its
//     last 74 bytes (,"mac":" then 64 digits then "}), appends '}', computes
//     the HMAC of that, and compares with the 64 digits it dropped. The MAC
//     is over the bytes of the line, never over a re-encoding.
//
// Earlier versions (v0.x) wrote unkeyed records, identical but for their
// last member, ,"hash":"H"} (75 bytes), H being the plain SHA-256 of the same
// canonical form. Such a chain proves integrity (nothing changed since it was
// written, or the whole chain after the change was recomputed), not
// authenticity: anyone can recompute it. This version reads them and never
// writes them. A log may begin with unkeyed records — a session of an
// earlier version continued by this one — but never holds an unkeyed record
// after a keyed one: continuing such a log, the first keyed record's P is
// the last unkeyed H, so its MAC, which covers P, authenticates the unkeyed
// prefix as it was at the switch.
//
// The chain alone cannot tell a log cut after a whole record from a shorter
// one, nor a log replaced by an older copy. So the session store records the
// head of the chain in the same step as each event: with the event of seq S
// it stores the MAC of record S − 1, written just before (the audit log is
// the engine's first sink, the store its second: session.Sink gets the head
// from AuditSink.Head). Verification against the store (AuditCheck.Store)
// then wants exactly one record per stored event, each with the MAC stored
// with its event: fewer records (cut, rolled back, emptied), more, or
// another MAC (replaced, rewritten) name the first record that differs.
// Events stored by earlier versions have no head: their unkeyed records are
// only counted. A log one record ahead of the store is what a crash between
// the two writes leaves; OpenAudit hands that record back (Unstored) for
// the caller to store, since the log, written first, is the store's
// write-ahead record of it.
//
// A fork's store copies its source's events up to its fork seq F, with the
// heads stored with them: their records are in the source's log. The fork's
// own log starts at record F, whose P is the head the store holds for seq F
// (the source's record F − 1), or 64 '0' when the copied event has none (a
// source of an earlier version). Verifying a fork, its log is checked from
// record F on; the copied heads are checked against the source's log
// (AuditSealOf), which is checked as the source's own. (Earlier versions
// started a fork's log at index 0, prev 64 '0', for the event of seq F + 1:
// such unkeyed records are numbered by line, their seqs offset by F; keyed
// records continuing them are numbered by seq again.)
//
// Before each record the writer checks that the file it holds is still the
// file at its path, with the size it left it at: a log deleted, replaced, or
// whose directory was removed, fails the write, which stops the engine.
//
// What the log and the store together cannot tell: a session removed from
// the store and its log then cut or replaced (the log of a removed session
// is only checked alone), and a log rewritten whole in the unkeyed form with
// every head erased from the store, which reads as a session of an earlier
// version — reported as unkeyed, never as authenticated. Heads sent
// elsewhere as they are written (AuditConfig.Anchor, SyslogAnchor) are the
// answer to both.

// zeroHash is the prev of a session's first record.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// The last member of a keyed and of an unkeyed record, after the event.
const (
	auditMACSuffixLen  = len(`,"mac":"`) + 64 + len(`"}`)
	auditHashSuffixLen = len(`,"hash":"`) + 64 + len(`"}`)
)

// AuditKeySize is the size of the key of the chain's MACs.
const AuditKeySize = 32

// auditCanonical defines the bytes a record's MAC is computed over.
type auditCanonical struct {
	Index uint64          `json:"index"`
	Prev  string          `json:"prev"`
	Event json.RawMessage `json:"event"`
}

// AuditConfig configures an audit sink.
type AuditConfig struct {
	// Path of the log. A missing file is created 0600, its missing
	// directories 0700.
	Path string
	// Key is the MAC key, AuditKeySize bytes: the audit subkey of the
	// at-rest key (atrest.Key.Subkey(atrest.PurposeAudit)). Required.
	Key []byte
	// SessionID is the session whose log this is: every record's event is
	// of it. Required.
	SessionID string
	// Store is what the session store holds of the session: nil when it
	// holds none (a new session). An existing file is continued only once
	// the whole of it verifies (VerifyAudit) with Key against Store; a log
	// whose last line is torn (ErrAuditTorn: see RepairAudit), shorter than
	// the store (ErrAuditShort), or broken anywhere is refused, unchanged.
	// A log one record ahead of the store, that record verifying, is
	// continued: see Unstored.
	Store *AuditStore
	// SyncEvery fsyncs after every record. Otherwise records reach the
	// operating system at once (a crash of the process loses nothing) and
	// are fsynced at turn boundaries and before anything risky: see Write.
	SyncEvery bool
	// Anchor, when set, is given each record's head once it is written, to
	// keep off the data directory (SyslogAnchor). Its failure fails the
	// Write, as the log's own would.
	Anchor AuditAnchor
}

// AuditAnchor keeps the heads of audit chains somewhere else than the data
// directory, so that even a log and a store replaced together are told from
// the originals.
type AuditAnchor interface {
	// Anchor records that the chain of session sessionID has the head mac
	// (hex) after record index.
	Anchor(sessionID string, index uint64, mac string) error
}

// AuditRecord is a record read back from a log.
type AuditRecord struct {
	Index uint64
	Event Event
	// MAC is the record's MAC (AuditKeySize bytes).
	MAC []byte
}

// AuditSink writes a session's keyed audit log. It is safe for concurrent
// use; the engine writes a session's events one at a time, in seq order,
// which is the only order the sink accepts.
type AuditSink struct {
	path      string
	session   string
	syncEvery bool
	anchor    AuditAnchor

	mu   sync.Mutex
	f    *os.File     // nil once closed
	w    io.Writer    // f; a seam for tests that need a failing disk
	sync func() error // f.Sync; a seam for tests that count syncs
	mac  hash.Hash    // HMAC-SHA-256 with the key
	key  []byte       // the key, for the seal
	// index and prev are those of the next record; size is the file's
	// size as this sink left it.
	index uint64
	prev  string
	size  int64
	// head is the MAC of the last record this sink wrote, that of the
	// event of seq index (none yet when empty).
	head []byte
	// unstored are the records the log held beyond the store at opening.
	unstored []AuditRecord
	// first, records and unkeyed describe the chain for its seal: the
	// index of its first record, how many records it holds, how many of
	// them are unkeyed records of an earlier version.
	first            uint64
	records, unkeyed int
	// err poisons the sink after a failed write or sync, or once the file
	// is no longer the one at its path: nothing may be chained after it.
	err error
	buf []byte
	sum []byte
}

var _ Sink = (*AuditSink)(nil)

// OpenAudit opens the audit log of cfg.SessionID at cfg.Path, creating it or
// continuing it once it has verified. Errors name the file; a log that does
// not verify gives an *AuditError (errors.As) naming its first bad record.
func OpenAudit(cfg AuditConfig) (*AuditSink, error) {
	switch {
	case cfg.Path == "":
		return nil, errors.New("audit log: no path")
	case len(cfg.Key) != AuditKeySize:
		return nil, fmt.Errorf("audit log %s: the key is %d bytes, want %d", cfg.Path, len(cfg.Key), AuditKeySize)
	case cfg.SessionID == "":
		return nil, fmt.Errorf("audit log %s: no session id", cfg.Path)
	}
	if cfg.Store != nil {
		if err := cfg.Store.check(); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
	}
	_, statErr := os.Stat(cfg.Path)
	created := errors.Is(statErr, fs.ErrNotExist)
	// One descriptor for reading the log and appending to it: no other
	// opening of the file can slip in between.
	f, err := os.OpenFile(cfg.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
	}
	fail := func(err error) (*AuditSink, error) {
		f.Close()
		return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	store := cfg.Store
	if store == nil {
		store = &AuditStore{}
	}
	// A log sealed whole by the process that last wrote it, and unchanged
	// since, is not read again (audit_seal.go); any other is verified
	// whole.
	rep, err := AuditReport{}, errNoSeal
	if cfg.Store != nil {
		rep, err = sealedReport(cfg.Path, fi, cfg.Key, cfg.SessionID, cfg.Store)
	}
	if err != nil {
		rep, err = VerifyAudit(io.NewSectionReader(f, 0, fi.Size()),
			AuditCheck{Key: cfg.Key, SessionID: cfg.SessionID, Store: store})
	}
	var unstored []AuditRecord
	switch {
	case errors.Is(err, ErrAuditAhead) && cfg.Store != nil && len(rep.Ahead) == 1:
		// What a crash between this log and the store leaves: the record
		// verified, the store never got its event. A session the store
		// does not have is never resurrected this way (its log may be
		// that of a removed session): cfg.Store is nil for it.
		unstored = rep.Ahead
	case errors.Is(err, ErrAuditAhead) && cfg.Store == nil:
		return fail(fmt.Errorf("the store has no session %s, but its audit log holds %d records (a removed session's log is kept): use another session id",
			cfg.SessionID, rep.Records))
	case err != nil:
		return fail(fmt.Errorf("%w; refusing to append to it", err))
	}
	if created {
		// The new file's name must survive a crash as well as its records.
		// Best effort: some file systems cannot sync a directory.
		if d, err := os.Open(filepath.Dir(cfg.Path)); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	a := &AuditSink{path: cfg.Path, session: cfg.SessionID, syncEvery: cfg.SyncEvery, anchor: cfg.Anchor,
		f: f, w: f, sync: f.Sync, mac: hmac.New(sha256.New, cfg.Key), key: cfg.Key,
		index: rep.Next, prev: rep.Head, size: fi.Size(), unstored: unstored,
		first: rep.First, records: rep.Records, unkeyed: rep.Unkeyed}
	if rep.Records == 0 {
		a.index, a.prev, a.first = store.First, store.startPrev(), store.First
	}
	return a, nil
}

// Unstored returns the records the log held, when it was opened, beyond
// the store's last event: at most one, the record of an event a crash kept
// from the store after the log had it. The caller stores each event with its
// MAC as the head before anything else is written; the sink's next record
// follows them.
func (a *AuditSink) Unstored() []AuditRecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AuditRecord(nil), a.unstored...)
}

// Head returns the MAC of the audit record of the event of session
// sessionID and seq seq, when it is the last record this sink wrote: the
// head of the chain the session store records with that event.
func (a *AuditSink) Head(sessionID string, seq uint64) ([]byte, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if sessionID != a.session || len(a.head) == 0 || seq != a.index {
		return nil, false
	}
	return append([]byte(nil), a.head...), true
}

// Write appends e, masked, as the next record. It refuses, leaving the sink
// usable, an ephemeral event, an event of another session, and one whose seq
// is not the next record's index + 1 (a record's index is its event's
// seq − 1). Before writing it checks that the file it holds is still the
// one at its path, of the size it left it (ErrAuditFileGone otherwise). The
// line goes to the file in one write call; it is fsynced with SyncEvery, and
// otherwise when e ends or starts something (SessionStarted, TurnCompleted,
// Rewound), reports a failure (Error), asks the user (PermissionRequested),
// or is the result of a tool that changed something (a ToolResult whose
// Risk is write or destructive). Any failure of the file is returned, and
// poisons the sink: every later Write fails, for the file may now end in a
// partial line or be gone. ctx is not consulted: the record of a cancelled
// turn must still be written.
func (a *AuditSink) Write(_ context.Context, e Event) error {
	if spec, known := SpecOf(e.Type); e.Ephemeral || (known && !spec.Persisted) {
		return fmt.Errorf("audit log %s: refusing ephemeral event %s", a.path, e.Type)
	}
	if e.SessionID != a.session {
		return fmt.Errorf("audit log %s: refusing event %d of session %q: this is the log of session %q", a.path, e.Seq, e.SessionID, a.session)
	}
	// Masking and encoding happen outside the lock.
	eb, err := json.Marshal(MaskEvent(e))
	if err != nil {
		return fmt.Errorf("audit log %s: encode event %d (%s): %w", a.path, e.Seq, e.Type, err)
	}

	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil {
		return fmt.Errorf("audit log %s: unusable after an earlier failure: %w", a.path, a.err)
	}
	if a.f == nil {
		return fmt.Errorf("audit log %s: closed", a.path)
	}
	if e.Seq != a.index+1 {
		return fmt.Errorf("audit log %s: refusing event seq %d: the next record is %d, for seq %d (a record's index is its event's seq - 1)",
			a.path, e.Seq, a.index, a.index+1)
	}
	if err := a.checkFile(); err != nil {
		a.err = fmt.Errorf("before record %d: %w", a.index, err)
		return fmt.Errorf("audit log %s: %w", a.path, a.err)
	}
	var line []byte
	line, a.sum = appendAuditRecord(a.buf[:0], a.sum[:0], a.mac, a.index, a.prev, eb)
	mac := hex.EncodeToString(a.sum)
	if cap(line) <= 1<<20 {
		a.buf = line // reuse, unless an outsized event grew it
	}

	n, err := a.w.Write(line)
	a.size += int64(n)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		a.err = fmt.Errorf("write record %d: %w", a.index, err)
		return fmt.Errorf("audit log %s: %w", a.path, a.err)
	}
	if a.syncEvery || syncWorthy(e) {
		if err := a.sync(); err != nil {
			a.err = fmt.Errorf("sync record %d: %w", a.index, err)
			return fmt.Errorf("audit log %s: %w", a.path, a.err)
		}
	}
	written := a.index
	a.head = append(a.head[:0], a.sum...)
	a.index++
	a.records++
	a.prev = mac
	if a.anchor != nil {
		// The record is in the log and the chain goes on from it, but the
		// engine must stop when its head could not be anchored.
		if err := a.anchor.Anchor(a.session, written, mac); err != nil {
			return fmt.Errorf("audit log %s: anchor the head of record %d: %w", a.path, written, err)
		}
	}
	return nil
}

// ErrAuditFileGone: the audit log is no longer the file at its path (the
// file or its directory was removed, or another file put in its place), or
// someone else changed its size. Nothing written to the file this sink holds
// could be found again.
var ErrAuditFileGone = errors.New("the audit log is no longer the file at its path")

// checkFile checks that a.f is still the file at a.path, untouched by
// others: one fstat and one stat.
func (a *AuditSink) checkFile() error {
	held, err := a.f.Stat()
	if err != nil {
		return fmt.Errorf("%w: stat the open file: %w", ErrAuditFileGone, err)
	}
	if n, ok := linkCount(held); ok && n == 0 {
		return fmt.Errorf("%w: the file was deleted", ErrAuditFileGone)
	}
	cur, err := os.Stat(a.path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAuditFileGone, err)
	}
	if !os.SameFile(held, cur) {
		return fmt.Errorf("%w: another file is at its path (moved, or replaced)", ErrAuditFileGone)
	}
	if held.Size() != a.size {
		return fmt.Errorf("%w: it holds %d bytes, this writer left %d (written or cut by someone else)", ErrAuditFileGone, held.Size(), a.size)
	}
	return nil
}

// syncWorthy reports whether e must be on disk before the engine goes on.
func syncWorthy(e Event) bool {
	switch e.Type {
	case SessionStarted, TurnCompleted, Error, PermissionRequested, Rewound:
		return true
	case ToolResult:
		var risk string
		switch p := e.Payload.(type) {
		case ToolResultPayload:
			risk = p.Risk
		case *ToolResultPayload:
			if p != nil {
				risk = p.Risk
			}
		}
		return risk == "write" || risk == "destructive"
	}
	return false
}

// appendAuditCanonical appends the canonical form of a record, the bytes
// json.Marshal(auditCanonical{index, prev, event}) gives when event is the
// output of json.Marshal (already compact and escaped) and prev is hex
// (nothing to escape) — without json.Marshal's second pass over the event.
func appendAuditCanonical(dst []byte, index uint64, prev string, event []byte) []byte {
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendUint(dst, index, 10)
	dst = append(dst, `,"prev":"`...)
	dst = append(dst, prev...)
	dst = append(dst, `","event":`...)
	dst = append(dst, event...)
	return append(dst, '}')
}

// appendAuditRecord appends the record of event at index after prev, line
// end included, and appends its MAC to sum: mac is the HMAC with the key,
// reset here.
func appendAuditRecord(dst, sum []byte, mac hash.Hash, index uint64, prev string, event []byte) (line, macSum []byte) {
	line = appendAuditCanonical(dst, index, prev, event)
	mac.Reset()
	mac.Write(line)
	sum = mac.Sum(sum)
	// The canonical form but its '}', then the mac member.
	line = append(line[:len(line)-1], `,"mac":"`...)
	line = hex.AppendEncode(line, sum)
	return append(line, "\"}\n"...), sum
}

// Close fsyncs and closes the file, and seals the log when it is whole
// (audit_seal.go): nothing failed, and the file is still the one at its
// path, as this sink left it. Later Writes fail.
func (a *AuditSink) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.f == nil {
		return nil
	}
	err := a.sync()
	if err != nil {
		err = fmt.Errorf("audit log %s: sync: %w", a.path, err)
	}
	if err == nil && a.err == nil && a.records > 0 && a.checkFile() == nil {
		// Best effort: without a seal the next opening verifies the
		// whole log.
		_ = writeSeal(a.path, a.f, a.key, auditSeal{Session: a.session, First: a.first, Next: a.index,
			Records: a.records, Unkeyed: a.unkeyed, Head: a.prev})
	}
	if cerr := a.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("audit log %s: close: %w", a.path, cerr)
	}
	a.f = nil
	return err
}
