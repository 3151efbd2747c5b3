package event

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
)

// Errors an *AuditError may wrap, for the callers that act on them; test
// them with errors.Is. A broken chain of any other kind wraps none.
var (
	// ErrAuditTorn: the last line has no end of line, as a power loss in
	// the middle of a write leaves it (RepairAudit sets it aside).
	ErrAuditTorn = errors.New("torn last record")
	// ErrAuditShort: the log holds fewer records than the store holds
	// events: records removed from its end, an older copy, an emptied file.
	ErrAuditShort = errors.New("fewer records than the store holds events")
	// ErrAuditAhead: the log holds records, each of which verifies, beyond
	// the store's last event (AuditReport.Ahead).
	ErrAuditAhead = errors.New("more records than the store holds events")
)

// AuditError locates the first bad record of an audit log.
type AuditError struct {
	// Index is the bad record's place in the chain: the index it should
	// have (its line - 1 in the log of a session that is not a fork),
	// whatever index it claims. For a log cut short, it is the first
	// missing record.
	Index uint64
	// Line is its 1-based line number in the file.
	Line   int
	Reason string
	// Err is ErrAuditTorn, ErrAuditShort, ErrAuditAhead or nil.
	Err error
}

func (e *AuditError) Error() string {
	return fmt.Sprintf("record %d (line %d): %s", e.Index, e.Line, e.Reason)
}

func (e *AuditError) Unwrap() error { return e.Err }

// AuditCheck is what VerifyAudit checks a log against.
type AuditCheck struct {
	// Key is the MAC key (AuditConfig.Key). Without it the MAC of a keyed
	// record cannot be checked; everything else is (its form, its place
	// in the chain, the store's head), and AuditReport.Authenticated says
	// the log was not.
	Key []byte
	// SessionID is the session every record must be of; "" takes the
	// first record's.
	SessionID string
	// Store is what the session store holds of the session; nil when the
	// log is checked alone (the store's count and heads are then not
	// compared: a log cut after a whole record, or an older copy, passes).
	Store *AuditStore
}

// AuditStore is what a session store holds of a session's audit log.
type AuditStore struct {
	// Heads holds one entry per stored event: Heads[i] is the head stored
	// with the event of seq i+1 (the MAC of its record, AuditKeySize bytes),
	// nil where the store has none (an event stored by an earlier
	// version).
	Heads [][]byte
	// First is the index of the log's first record: 0, or a fork's fork
	// seq (the records before are in its source's log).
	First uint64
}

func (s *AuditStore) check() error {
	if s.First > uint64(len(s.Heads)) {
		return fmt.Errorf("the log would start at record %d, but the store holds %d events", s.First, len(s.Heads))
	}
	for i, h := range s.Heads {
		if h != nil && len(h) != AuditKeySize {
			return fmt.Errorf("the store's head of seq %d is %d bytes, want %d", i+1, len(h), AuditKeySize)
		}
	}
	return nil
}

// startPrev is the prev of the log's first record.
func (s *AuditStore) startPrev() string {
	if s.First == 0 || s.Heads[s.First-1] == nil {
		return zeroHash
	}
	return hex.EncodeToString(s.Heads[s.First-1])
}

// AuditReport is what VerifyAudit found, as far as the log verified.
type AuditReport struct {
	// SessionID is the session of the records ("" without any).
	SessionID string
	// First is the place of the first record in the session's chain (its
	// event's seq - 1: 0, or a fork's fork seq); Next, that of the record
	// after the last one that verified, the seq of that one's event.
	First, Next uint64
	// Records counts the records that verified; Unkeyed, how many of
	// them are unkeyed records of an earlier version (they come first).
	Records, Unkeyed int
	// Authenticated: every keyed record's MAC was checked with the key.
	// It is false without AuditCheck.Key, and says nothing of the unkeyed
	// records, which have no MAC.
	Authenticated bool
	// Head is the MAC (or the hash, for an unkeyed record) of the last
	// record that verified, in hex: the next record's prev.
	Head string
	// Ahead are the records beyond the store's last event, when the
	// error is ErrAuditAhead.
	Ahead []AuditRecord
}

// VerifyAudit checks an audit log, all of it: the form of each record, its
// place in the chain, its event's seq and session, its MAC with check.Key
// (or the hash of an unkeyed record), and, with check.Store, one record per
// stored event, each with the MAC the store holds for it. On a log that
// does not verify, err is an *AuditError naming the first bad record (or
// the first missing one), and the report counts the good ones before it.
// An empty log is valid, unless the store holds events. Lines may be of any
// length.
func VerifyAudit(r io.Reader, check AuditCheck) (AuditReport, error) {
	v := newAuditVerifier(check)
	if check.Store != nil {
		if err := check.Store.check(); err != nil {
			return v.report(), fmt.Errorf("audit log: %w", err)
		}
	}
	br := bufio.NewReaderSize(r, 256<<10)
	var buf []byte
	for {
		line, complete, err := readAuditLine(br, buf[:0])
		buf = line
		if err != nil && !errors.Is(err, io.EOF) {
			return v.report(), fmt.Errorf("read audit log: %w", err)
		}
		if !complete {
			if len(line) == 0 {
				return v.report(), v.end() // the end, after a whole line
			}
			return v.report(), v.fail("truncated record: no end of line", ErrAuditTorn)
		}
		if err := v.record(line); err != nil {
			return v.report(), err
		}
	}
}

// VerifyAuditFile is VerifyAudit of the file at path. Its errors name the
// file.
func VerifyAuditFile(path string, check AuditCheck) (AuditReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return AuditReport{}, fmt.Errorf("audit log %s: %w", path, err)
	}
	defer f.Close()
	rep, err := VerifyAudit(f, check)
	if err != nil {
		return rep, fmt.Errorf("audit log %s: %w", path, err)
	}
	return rep, nil
}

// AuditSealOf returns the MAC (or, keyed false, the hash) of the record of
// the event of seq seq in the log r, without verifying the chain: what a
// fork's first record chains onto in its source's log. A log without that
// record is an error.
func AuditSealOf(r io.Reader, seq uint64) (seal string, keyed bool, err error) {
	br := bufio.NewReaderSize(r, 256<<10)
	var buf []byte
	for at := 1; ; at++ {
		line, complete, err := readAuditLine(br, buf[:0])
		buf = line
		if err != nil && !errors.Is(err, io.EOF) {
			return "", false, fmt.Errorf("read audit log: %w", err)
		}
		if !complete {
			return "", false, fmt.Errorf("the log has no record of seq %d", seq)
		}
		rec, reason := parseAuditLine(line)
		if reason != "" {
			return "", false, &AuditError{Index: uint64(at - 1), Line: at, Reason: reason}
		}
		if rec.seq == seq {
			return string(rec.seal), rec.keyed, nil
		}
	}
}

// auditVerifier checks a log one record at a time.
type auditVerifier struct {
	check   AuditCheck
	mac     hash.Hash // nil without a key
	plain   hash.Hash
	session []byte // the session id as JSON, once known
	lines   int
	keyed   bool // a keyed record was met
	// offset is seq - 1 - index of the unkeyed records of a fork's log
	// an earlier version wrote (0 otherwise); nextIdx is the index that
	// follows the last record's.
	offset  uint64
	nextIdx uint64
	rep     AuditReport
	head    [64]byte // the seal of the last record that verified
	sum     []byte
	hexSum  [64]byte
}

// report is the report so far.
func (v *auditVerifier) report() AuditReport {
	if v.rep.Records > 0 {
		v.rep.Head = string(v.head[:])
	}
	return v.rep
}

func newAuditVerifier(check AuditCheck) *auditVerifier {
	v := &auditVerifier{check: check, plain: sha256.New()}
	v.rep.Authenticated = len(check.Key) > 0
	if len(check.Key) > 0 {
		v.mac = hmac.New(sha256.New, check.Key)
	}
	if check.SessionID != "" {
		v.session, _ = json.Marshal(check.SessionID)
		v.rep.SessionID = check.SessionID
	}
	if check.Store != nil {
		v.rep.First, v.rep.Next = check.Store.First, check.Store.First
	}
	return v
}

// fail is the *AuditError of the record on the line just read.
func (v *auditVerifier) fail(reason string, err error) error {
	return &AuditError{Index: v.rep.Next, Line: v.lines + 1, Reason: reason, Err: err}
}

// record checks one complete line.
func (v *auditVerifier) record(line []byte) error {
	rec, reason := parseAuditLine(line)
	if reason != "" {
		return v.fail(reason, nil)
	}
	first := v.lines == 0
	if first {
		// An earlier version started a fork's log at index 0, its first
		// event of seq fork seq + 1: its unkeyed records are numbered
		// from 0, offset from their seqs.
		oldFork := !rec.keyed && rec.index == 0 && rec.seq > 1
		switch st := v.check.Store; {
		case st == nil && oldFork:
			v.offset = rec.seq - 1
		case st == nil:
			// Alone, a log may start anywhere: a fork's starts at its
			// fork seq, and only the store can tell what it chains onto.
		case oldFork && rec.seq-1 == st.First:
			v.offset = st.First
		case rec.index != st.First:
			return v.fail(fmt.Sprintf("index %d, want %d: the log does not start where the store says (its first records are missing, or it is another log)",
				rec.index, st.First), nil)
		}
		v.nextIdx, v.rep.First, v.rep.Next = rec.index, rec.index+v.offset, rec.index+v.offset
	}
	// Keyed records are numbered by seq; the unkeyed records of an
	// earlier version's fork, by line.
	wantIndex, wantSeq := v.nextIdx, rec.index+1+v.offset
	if rec.keyed {
		wantIndex, wantSeq = v.rep.Next, rec.index+1
	}
	if rec.index != wantIndex {
		return v.fail(fmt.Sprintf("index %d, want %d (a record deleted, duplicated or moved)", rec.index, wantIndex), nil)
	}
	switch {
	case first && rec.index == 0 && string(rec.prev) != zeroHash:
		return v.fail(fmt.Sprintf("prev %.12s… of the first record is not zero", rec.prev), nil)
	case first && rec.index > 0 && v.check.Store != nil && string(rec.prev) != v.check.Store.startPrev():
		return v.fail(fmt.Sprintf("prev %.12s… is not the head %.12s… the store holds for seq %d, where this fork's log starts",
			rec.prev, v.check.Store.startPrev(), rec.index), nil)
	case !first && !bytes.Equal(rec.prev, v.head[:]):
		return v.fail(fmt.Sprintf("prev %.12s… is not the previous record's mac %.12s…", rec.prev, v.head[:]), nil)
	}
	if rec.seq != wantSeq {
		return v.fail(fmt.Sprintf("event seq %d in record %d: a record's index is its event's seq - 1", rec.seq, rec.index), nil)
	}
	if v.session == nil {
		v.session = bytes.Clone(rec.session)
		var id string
		if err := json.Unmarshal(rec.session, &id); err != nil {
			return v.fail(fmt.Sprintf("session id: %v", err), nil)
		}
		v.rep.SessionID = id
	} else if !bytes.Equal(rec.session, v.session) {
		return v.fail(fmt.Sprintf("event of session %s in the log of session %s", rec.session, v.session), nil)
	}
	if reason := v.seal(line, rec); reason != "" {
		return v.fail(reason, nil)
	}
	ahead := false
	if st := v.check.Store; st != nil {
		seq := rec.seq
		switch {
		case seq > uint64(len(st.Heads)):
			ahead = true
		case !rec.keyed && st.Heads[seq-1] != nil:
			return v.fail(fmt.Sprintf("unkeyed, but the store holds a head for seq %d: the log was rewritten without the key", seq), nil)
		case rec.keyed && st.Heads[seq-1] == nil:
			return v.fail(fmt.Sprintf("the store holds no head for seq %d, whose record is keyed: the store's head was erased", seq), nil)
		case rec.keyed:
			hex.Encode(v.hexSum[:], st.Heads[seq-1])
			if !bytes.Equal(rec.seal, v.hexSum[:]) {
				return v.fail(fmt.Sprintf("mac %.12s… is not the head %.12s… the store holds for seq %d: the log was replaced or rewritten",
					rec.seal, v.hexSum[:], seq), nil)
			}
		}
	}
	if ahead {
		e, err := Decode(rec.event)
		if err != nil {
			return v.fail(fmt.Sprintf("event does not decode: %v", err), nil)
		}
		mac, err := hex.DecodeString(string(rec.seal))
		if err != nil || !rec.keyed {
			return v.fail(fmt.Sprintf("unkeyed, beyond the store's last event (seq %d): the log was added to", len(v.check.Store.Heads)), nil)
		}
		v.rep.Ahead = append(v.rep.Ahead, AuditRecord{Index: rec.index, Event: e, MAC: mac})
	}
	v.lines++
	v.rep.Records++
	if !rec.keyed {
		v.rep.Unkeyed++
	}
	copy(v.head[:], rec.seal)
	v.nextIdx, v.rep.Next = rec.index+1, rec.seq
	return nil
}

// seal checks a record's MAC, or its hash when it is unkeyed, and that
// unkeyed records come only before keyed ones.
func (v *auditVerifier) seal(line []byte, rec auditLine) string {
	body := line[:len(line)-rec.suffix] // the canonical form but its '}'
	if !rec.keyed {
		if v.keyed {
			return "an unkeyed record after keyed ones: written without the key"
		}
		// Anyone can recompute a hash: at least the event must be JSON.
		if !json.Valid(rec.event) {
			return "event is not valid JSON"
		}
		if !v.sealMatches(v.plain, body, rec.seal) {
			return fmt.Sprintf("hash mismatch: stored %.12s…, computed %.12s…", rec.seal, v.hexSum[:])
		}
		return ""
	}
	v.keyed = true
	if v.mac == nil {
		// Without the key the MAC cannot be checked: at least the event
		// must be JSON.
		if !json.Valid(rec.event) {
			return "event is not valid JSON"
		}
		return ""
	}
	if !v.sealMatches(v.mac, body, rec.seal) {
		return "mac mismatch: not written with this key (forged, rewritten without the key, or written under another at-rest key)"
	}
	return ""
}

// closeBrace ends a record's canonical form.
var closeBrace = []byte{'}'}

// sealMatches computes h (the hash, or the HMAC with the key) of a record's
// canonical form — body, then '}' — into v.hexSum, in hex, and reports
// whether it is seal.
func (v *auditVerifier) sealMatches(h hash.Hash, body, seal []byte) bool {
	h.Reset()
	h.Write(body)
	h.Write(closeBrace)
	v.sum = h.Sum(v.sum[:0])
	hex.Encode(v.hexSum[:], v.sum)
	return bytes.Equal(v.hexSum[:], seal)
}

// end checks, at the end of the log, that the store holds no more events
// than the log records, and no fewer.
func (v *auditVerifier) end() error {
	st := v.check.Store
	if st == nil {
		return nil
	}
	if events := uint64(len(st.Heads)); v.rep.Next < events {
		what := fmt.Sprintf("the log ends at record %d", int64(v.rep.Next)-1)
		if v.rep.Records == 0 {
			what = "the log is empty"
		}
		return &AuditError{Index: v.rep.Next, Line: v.lines + 1, Err: ErrAuditShort,
			Reason: fmt.Sprintf("missing: %s, but the store holds events up to seq %d (%d records removed: the log was cut, rolled back or emptied)",
				what, events, events-v.rep.Next)}
	}
	if len(v.rep.Ahead) > 0 {
		first := v.rep.Ahead[0].Index
		return &AuditError{Index: first, Line: v.lines - len(v.rep.Ahead) + 1, Err: ErrAuditAhead,
			Reason: fmt.Sprintf("beyond the store, which ends at seq %d: %d records the store lacks (a crash between the audit log and the store leaves one)",
				len(st.Heads), len(v.rep.Ahead))}
	}
	return nil
}

// readAuditLine reads one line into buf, without its end of line; complete
// is false at the end of the input (line then holds a torn last line, if
// any). Unlike bufio.Scanner it has no length limit: events can be MBs.
func readAuditLine(br *bufio.Reader, buf []byte) (line []byte, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, false, err
		}
	}
}

// auditLine is a record as read back: slices of its line.
type auditLine struct {
	index   uint64
	prev    []byte // 64 hex digits
	event   []byte
	seal    []byte // the mac, or the hash of an unkeyed record: 64 hex digits
	keyed   bool
	suffix  int // the length of the seal's member and the closing '}'
	seq     uint64
	session []byte // the event's session_id, as JSON
}

// parseAuditLine reads a line of the exact form of a record; reason says
// what is wrong with it. The event is only read as far as its seq, type and
// session id: what the chain needs.
func parseAuditLine(line []byte) (rec auditLine, reason string) {
	if len(line) == 0 {
		return rec, "empty line"
	}
	rest, ok := bytes.CutPrefix(line, []byte(`{"index":`))
	if !ok {
		return rec, `not a record: it does not begin {"index":`
	}
	var n int
	if rec.index, n, ok = parseUint(rest); !ok {
		return rec, "index is not a number in canonical form"
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"prev":"`)); !ok || len(rest) < 64 || !isHexHash(rest[:64]) {
		return rec, "prev is not a MAC or SHA-256 in lower-case hex"
	}
	rec.prev = rest[:64]
	if rest, ok = bytes.CutPrefix(rest[64:], []byte(`","event":`)); !ok {
		return rec, "no event after prev"
	}
	switch l := len(rest); {
	case l >= auditMACSuffixLen && bytes.HasPrefix(rest[l-auditMACSuffixLen:], []byte(`,"mac":"`)):
		rec.keyed, rec.suffix = true, auditMACSuffixLen
	case l >= auditHashSuffixLen && bytes.HasPrefix(rest[l-auditHashSuffixLen:], []byte(`,"hash":"`)):
		rec.suffix = auditHashSuffixLen
	default:
		return rec, `no "mac" member at the end (nor the "hash" of an earlier version)`
	}
	l := len(rest)
	rec.seal = rest[l-66 : l-2]
	if !isHexHash(rec.seal) || string(rest[l-2:]) != `"}` {
		return rec, "the mac (or hash) is not 64 lower-case hex digits closing the record"
	}
	rec.event = rest[:l-rec.suffix]
	if len(rec.event) < 2 || rec.event[0] != '{' || rec.event[len(rec.event)-1] != '}' {
		return rec, "event is not an object"
	}
	if rec.seq, rec.session, ok = parseEventHead(rec.event); !ok {
		return rec, `event does not begin {"seq":S,"type":T,"session_id":I`
	}
	return rec, ""
}

// parseEventHead reads the seq and the session id (as JSON) that begin an
// event encoded by json.Marshal.
func parseEventHead(e []byte) (seq uint64, session []byte, ok bool) {
	rest, ok := bytes.CutPrefix(e, []byte(`{"seq":`))
	if !ok {
		return 0, nil, false
	}
	seq, n, ok := parseUint(rest)
	if !ok {
		return 0, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"type":`)); !ok {
		return 0, nil, false
	}
	if n = jsonStringLen(rest); n < 0 {
		return 0, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"session_id":`)); !ok {
		return 0, nil, false
	}
	if n = jsonStringLen(rest); n < 0 {
		return 0, nil, false
	}
	return seq, rest[:n], true
}

// parseUint reads a decimal number without leading zeros at the start of b.
func parseUint(b []byte) (v uint64, n int, ok bool) {
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 || (n > 1 && b[0] == '0') {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(string(b[:n]), 10, 64)
	return v, n, err == nil
}

// jsonStringLen is the length of the JSON string at the start of b, quotes
// included; -1 when b does not start with a complete one.
func jsonStringLen(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func isHexHash(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
