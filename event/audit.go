package event

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// The audit log is an append-only JSONL file whose records form a hash
// chain, so that a flipped byte, a deleted, duplicated or reordered record,
// an edited event or a torn end is detected (VerifyAudit). Each line is one
// record, written as exactly these bytes:
//
//	{"index":N,"prev":"P","event":E,"hash":"H"}\n
//
//   - N: the record's position, 0 for the first line, in decimal without
//     leading zeros;
//   - P: the hash H of the previous record, or 64 '0' for the first;
//   - E: the event, masked (MaskEvent: the log never holds a secret), as
//     json.Marshal encodes it: compact, no blank between tokens, HTML
//     characters escaped (\u003c…);
//   - H: the SHA-256, in 64 lower-case hex digits, of the canonical form
//
//     {"index":N,"prev":"P","event":E}
//
//     that is, the bytes json.Marshal gives for struct{Index uint64
//     `json:"index"`; Prev string `json:"prev"`; Event json.RawMessage
//     `json:"event"`} with those fields in that order. It is the line
//     itself without its ',"hash":"H"' member: a verifier in any language
//     takes the line without its end of line, drops its last 75 bytes
//     (,"hash":" then 64 digits then "}), appends '}', hashes that, and
//     compares with the 64 digits it dropped. Records are never re-encoded
//     after the fact: a record whose bytes are not exactly the form above
//     is invalid even if its hash matches.
//
// A chain proves that the records are the ones written, in order, without
// loss in the middle. It cannot tell a log cut after a whole record from a
// shorter one, nor resist someone who rewrites the whole chain: keep the
// last hash elsewhere (a session's final report) to anchor it.

// zeroHash is the prev of the first record.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// auditHashSuffixLen is the length of ',"hash":"' + 64 hex digits + '"}'.
const auditHashSuffixLen = len(`,"hash":"`) + 64 + len(`"}`)

// auditCanonical defines the bytes a record's hash is computed over.
type auditCanonical struct {
	Index uint64          `json:"index"`
	Prev  string          `json:"prev"`
	Event json.RawMessage `json:"event"`
}

// AuditConfig configures an audit sink.
type AuditConfig struct {
	// Path of the log. A missing file is created 0600, its missing
	// directories 0700. An existing file is continued: OpenAudit reads its
	// last record to take the next index and prev, and refuses a file whose
	// last line is torn (no end of line, invalid JSON, a bad hash) rather
	// than append after a broken chain.
	Path string
	// SyncEvery fsyncs after every record. Otherwise records reach the
	// operating system at once (a crash of the process loses nothing) and
	// are fsynced at turn boundaries and before anything risky: see Write.
	SyncEvery bool
}

// AuditSink writes the hash-chained audit log. It is safe for concurrent
// use: records are numbered in the order their Writes take the lock.
type AuditSink struct {
	path      string
	syncEvery bool

	mu   sync.Mutex
	f    *os.File     // nil once closed
	w    io.Writer    // f; a seam for tests that need a failing disk
	sync func() error // f.Sync; a seam for tests that count syncs
	// index and prev are those of the next record.
	index uint64
	prev  string
	// err poisons the sink after a failed write or sync: the file may end
	// in a partial line, and nothing may be chained after it.
	err error
	buf []byte
}

var _ Sink = (*AuditSink)(nil)

// OpenAudit opens the audit log at cfg.Path, creating it or continuing it.
func OpenAudit(cfg AuditConfig) (*AuditSink, error) {
	if cfg.Path == "" {
		return nil, errors.New("audit log: no path")
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
	}
	_, statErr := os.Stat(cfg.Path)
	created := errors.Is(statErr, fs.ErrNotExist)
	// One descriptor for reading the tail and appending: no other opening
	// of the file can slip in between.
	f, err := os.OpenFile(cfg.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
	}
	index, prev, err := lastAuditRecord(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit log %s: %w", cfg.Path, err)
	}
	if created {
		// The new file's name must survive a crash as well as its records.
		// Best effort: some file systems cannot sync a directory.
		if d, err := os.Open(filepath.Dir(cfg.Path)); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	return &AuditSink{path: cfg.Path, syncEvery: cfg.SyncEvery, f: f, w: f, sync: f.Sync,
		index: index, prev: prev}, nil
}

// lastAuditRecord returns the index and prev of the record that follows the
// last one of f. It reads the whole file once, to count its lines (the last
// record's index must be its line number - 1), but parses only the last
// line: the whole chain is VerifyAudit's job.
func lastAuditRecord(f *os.File) (index uint64, prev string, err error) {
	buf := make([]byte, 256<<10)
	var off, lastNL, prevNL int64 = 0, -1, -1
	lines := 0
	for {
		n, rerr := f.ReadAt(buf, off)
		chunk := buf[:n]
		if c := bytes.Count(chunk, []byte{'\n'}); c > 0 {
			lines += c
			i := bytes.LastIndexByte(chunk, '\n')
			if c >= 2 {
				prevNL = off + int64(bytes.LastIndexByte(chunk[:i], '\n'))
			} else {
				prevNL = lastNL
			}
			lastNL = off + int64(i)
		}
		off += int64(n)
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, "", fmt.Errorf("read: %w", rerr)
		}
	}
	size := off
	if size == 0 {
		return 0, zeroHash, nil
	}
	if lastNL != size-1 {
		return 0, "", fmt.Errorf("%w; refusing to append after a broken chain",
			&AuditError{Index: lines, Line: lines + 1, Reason: "truncated record: no end of line"})
	}
	line := make([]byte, lastNL-(prevNL+1))
	if _, err := f.ReadAt(line, prevNL+1); err != nil {
		return 0, "", fmt.Errorf("read: %w", err)
	}
	at := lines - 1
	rec, reason := parseAuditRecord(line)
	if reason == "" && rec.Index != uint64(at) {
		reason = fmt.Sprintf("index %d, want %d", rec.Index, at)
	}
	if reason == "" {
		reason = auditRecordIntegrity(line, rec)
	}
	if reason != "" {
		return 0, "", fmt.Errorf("%w; refusing to append after a broken chain",
			&AuditError{Index: at, Line: at + 1, Reason: reason})
	}
	return uint64(lines), rec.Hash, nil
}

// Write appends e, masked, as the next record. It refuses ephemeral events.
// The line goes to the file in one write call; it is fsynced with SyncEvery,
// and otherwise when e ends or starts something (SessionStarted,
// TurnCompleted, Rewound), reports a failure (Error), asks the user
// (PermissionRequested), or is the result of a tool that changed something
// (a ToolResult whose Risk is write or destructive). Any write or sync error
// is returned, and poisons the sink: every later Write fails, for the file
// may now end in a partial line. ctx is not consulted: the record of a
// cancelled turn must still be written.
func (a *AuditSink) Write(_ context.Context, e Event) error {
	if spec, known := SpecOf(e.Type); e.Ephemeral || (known && !spec.Persisted) {
		return fmt.Errorf("audit log %s: refusing ephemeral event %s", a.path, e.Type)
	}
	// Masking and encoding happen outside the lock: sessions that write
	// concurrently only queue for the write itself.
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
	line := appendAuditCanonical(a.buf[:0], a.index, a.prev, eb)
	sum := sha256.Sum256(line)
	hash := hex.EncodeToString(sum[:])
	line = append(line[:len(line)-1], `,"hash":"`...)
	line = append(line, hash...)
	line = append(line, "\"}\n"...)
	if cap(line) <= 1<<20 {
		a.buf = line // reuse, unless an outsized event grew it
	}

	n, err := a.w.Write(line)
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
	a.index++
	a.prev = hash
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

// Close fsyncs and closes the file. Later Writes fail.
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
	if cerr := a.f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("audit log %s: close: %w", a.path, cerr)
	}
	a.f = nil
	return err
}
