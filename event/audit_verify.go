package event

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
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
	// Sparse: Heads holds only the heads the caller read — the last
	// stored event's, and a fork's start — and nil elsewhere means "not
	// read", not "none stored". Every keyed record's MAC is still checked
	// with the key, and each MAC covers the one before, so the last head
	// alone pins the whole chain: a record changed, removed or replaced
	// anywhere changes the MAC of every record after it. What a sparse
	// store cannot tell is which earlier head the store lacks (a head
	// erased from the store), which only a full verification reports.
	Sparse bool
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
//
// r is read in large blocks, and a log of more than one block is verified
// on up to GOMAXPROCS goroutines (audit_verify_parallel.go): the report and
// the error are those of checking one record after the other. r is read to
// its end, or, on a log that does not verify, to a few blocks beyond its
// first bad record; nothing reads r once VerifyAudit has returned.
func VerifyAudit(r io.Reader, check AuditCheck) (AuditReport, error) {
	return verifyAudit(r, check, auditVerifyOptions{})
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

// auditVerifier checks a log one record at a time, in order. What a record
// holds alone — its form, its MAC or hash, whether its event is JSON, how it
// stands with the store's head of its seq — is found out first
// (auditHasher.prepare, on any goroutine); record, then, checks it in its
// place in the chain, from that and from what the records before it left.
type auditVerifier struct {
	check   AuditCheck
	h       *auditHasher
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
	hexSum  [64]byte
	pre     auditPre // the record being checked, when checked alone
}

// report is the report so far.
func (v *auditVerifier) report() AuditReport {
	if v.rep.Records > 0 {
		v.rep.Head = string(v.head[:])
	}
	return v.rep
}

func newAuditVerifier(check AuditCheck) *auditVerifier {
	v := &auditVerifier{check: check, h: newAuditHasher(check)}
	v.rep.Authenticated = len(check.Key) > 0
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

// line checks one complete line, prepared here.
func (v *auditVerifier) line(line []byte) error {
	v.h.prepare(&v.pre, line, v.check.Store)
	return v.record(&v.pre)
}

// auditPre is what a line holds alone, as auditHasher.prepare found it.
type auditPre struct {
	line   []byte
	rec    auditLine
	reason string // what is wrong with the line's form; "" when it is a record
	// jsonOK: the event is valid JSON, found out only for the records
	// whose MAC does not tell (unkeyed ones, and all without the key).
	jsonOK bool
	// sealOK: the MAC with the key (keyed) or the hash (unkeyed, when its
	// event is JSON) is the record's.
	sealOK bool
	// storeOK: without a store, or the store holds the head of the
	// record's seq, and it is the record's MAC (keyed), or none (unkeyed).
	storeOK bool
}

// auditHasher prepares lines: one per goroutine.
type auditHasher struct {
	mac   hash.Hash // nil without a key
	plain hash.Hash
	sum   []byte
}

func newAuditHasher(check AuditCheck) *auditHasher {
	h := &auditHasher{plain: sha256.New(), sum: make([]byte, 0, sha256.Size)}
	if len(check.Key) > 0 {
		h.mac = hmac.New(sha256.New, check.Key)
	}
	return h
}

// prepare finds out into p what line holds alone, and what st holds of its
// seq: whatever the records around it, and on any goroutine.
func (h *auditHasher) prepare(p *auditPre, line []byte, st *AuditStore) {
	*p = auditPre{line: line}
	if p.reason = parseAuditLineInto(&p.rec, line); p.reason != "" {
		return
	}
	rec := &p.rec
	body := line[:len(line)-rec.suffix]
	switch {
	case !rec.keyed:
		// Anyone can recompute a hash: at least the event must be JSON.
		p.jsonOK = json.Valid(rec.event)
		p.sealOK = p.jsonOK && h.matches(h.plain, body, &rec.sealSum)
	case h.mac == nil:
		// Without the key the MAC cannot be checked: at least the event
		// must be JSON.
		p.jsonOK = json.Valid(rec.event)
	default:
		p.sealOK = h.matches(h.mac, body, &rec.sealSum)
	}
	p.storeOK = st == nil
	if seq := rec.seq; st != nil && seq > 0 && seq <= uint64(len(st.Heads)) {
		held := st.Heads[seq-1]
		p.storeOK = rec.keyed && held != nil && bytes.Equal(held, rec.sealSum[:]) ||
			!rec.keyed && held == nil || st.Sparse && held == nil
	}
}

// closeBrace ends a record's canonical form.
var closeBrace = []byte{'}'}

// matches computes hh (the hash, or the HMAC with the key) of a record's
// canonical form — body, then '}' — into h.sum, and reports whether it is
// seal.
func (h *auditHasher) matches(hh hash.Hash, body []byte, seal *[sha256.Size]byte) bool {
	hh.Reset()
	hh.Write(body)
	hh.Write(closeBrace)
	h.sum = hh.Sum(h.sum[:0])
	return [sha256.Size]byte(h.sum) == *seal
}

// record checks the record p prepared, in its place: the next one.
func (v *auditVerifier) record(p *auditPre) error {
	if p.reason != "" {
		return v.fail(p.reason, nil)
	}
	rec := &p.rec
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
	if reason := v.seal(p); reason != "" {
		return v.fail(reason, nil)
	}
	ahead := false
	if st := v.check.Store; st != nil && !p.storeOK {
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
		if !rec.keyed {
			return v.fail(fmt.Sprintf("unkeyed, beyond the store's last event (seq %d): the log was added to", len(v.check.Store.Heads)), nil)
		}
		v.rep.Ahead = append(v.rep.Ahead, AuditRecord{Index: rec.index, Event: e, MAC: bytes.Clone(rec.sealSum[:])})
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

// seal says what is wrong with a record's MAC, or its hash when it is
// unkeyed, and that unkeyed records come only before keyed ones.
func (v *auditVerifier) seal(p *auditPre) string {
	rec := &p.rec
	if !rec.keyed {
		if v.keyed {
			return "an unkeyed record after keyed ones: written without the key"
		}
		if !p.jsonOK {
			return "event is not valid JSON"
		}
		if !p.sealOK {
			v.h.matches(v.h.plain, p.line[:len(p.line)-rec.suffix], &rec.sealSum)
			hex.Encode(v.hexSum[:], v.h.sum)
			return fmt.Sprintf("hash mismatch: stored %.12s…, computed %.12s…", rec.seal, v.hexSum[:])
		}
		return ""
	}
	v.keyed = true
	if v.h.mac == nil {
		if !p.jsonOK {
			return "event is not valid JSON"
		}
		return ""
	}
	if !p.sealOK {
		return "mac mismatch: not written with this key (forged, rewritten without the key, or written under another at-rest key)"
	}
	return ""
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
	sealSum [sha256.Size]byte
	keyed   bool
	suffix  int // the length of the seal's member and the closing '}'
	seq     uint64
	session []byte // the event's session_id, as JSON
}

// parseAuditLine reads a line of the exact form of a record; reason says
// what is wrong with it. The event is only read as far as its seq, type and
// session id: what the chain needs.
func parseAuditLine(line []byte) (rec auditLine, reason string) {
	reason = parseAuditLineInto(&rec, line)
	return rec, reason
}

// parseAuditLineInto is parseAuditLine into rec, which it may leave half
// filled when the line is not a record.
func parseAuditLineInto(rec *auditLine, line []byte) (reason string) {
	if len(line) == 0 {
		return "empty line"
	}
	if !(len(line) >= 9 && string(line[:9]) == `{"index":`) {
		return `not a record: it does not begin {"index":`
	}
	rest := line[9:]
	var n int
	var ok bool
	if rec.index, n, ok = parseUint(rest); !ok {
		return "index is not a number in canonical form"
	}
	// ,"prev":" then 64 digits then ","event":
	if rest = rest[n:]; len(rest) < 9+64 || string(rest[:9]) != `,"prev":"` || !isHexHash(rest[9:9+64]) {
		return "prev is not a MAC or SHA-256 in lower-case hex"
	}
	rec.prev = rest[9 : 9+64]
	if rest = rest[9+64:]; len(rest) < 10 || string(rest[:10]) != `","event":` {
		return "no event after prev"
	}
	rest = rest[10:]
	switch l := len(rest); {
	case l >= auditMACSuffixLen && string(rest[l-auditMACSuffixLen:][:8]) == `,"mac":"`:
		rec.keyed, rec.suffix = true, auditMACSuffixLen
	case l >= auditHashSuffixLen && string(rest[l-auditHashSuffixLen:][:9]) == `,"hash":"`:
		rec.suffix = auditHashSuffixLen
	default:
		return `no "mac" member at the end (nor the "hash" of an earlier version)`
	}
	l := len(rest)
	rec.seal = rest[l-66 : l-2]
	if !decodeHexHash(&rec.sealSum, rec.seal) || string(rest[l-2:]) != `"}` {
		return "the mac (or hash) is not 64 lower-case hex digits closing the record"
	}
	rec.event = rest[:l-rec.suffix]
	if len(rec.event) < 2 || rec.event[0] != '{' || rec.event[len(rec.event)-1] != '}' {
		return "event is not an object"
	}
	if rec.seq, rec.session, ok = parseEventHead(rec.event); !ok {
		return `event does not begin {"seq":S,"type":T,"session_id":I`
	}
	return ""
}

// parseEventHead reads the seq and the session id (as JSON) that begin an
// event encoded by json.Marshal.
func parseEventHead(e []byte) (seq uint64, session []byte, ok bool) {
	if len(e) < 7 || string(e[:7]) != `{"seq":` {
		return 0, nil, false
	}
	seq, n, ok := parseUint(e[7:])
	if !ok {
		return 0, nil, false
	}
	rest := e[7+n:]
	if len(rest) < 8 || string(rest[:8]) != `,"type":` {
		return 0, nil, false
	}
	rest = rest[8:]
	if n = jsonStringLen(rest); n < 0 {
		return 0, nil, false
	}
	rest = rest[n:]
	if len(rest) < 14 || string(rest[:14]) != `,"session_id":` {
		return 0, nil, false
	}
	rest = rest[14:]
	if n = jsonStringLen(rest); n < 0 {
		return 0, nil, false
	}
	return seq, rest[:n], true
}

// parseUint reads a decimal number without leading zeros at the start of b;
// one above the largest uint64 is not.
func parseUint(b []byte) (v uint64, n int, ok bool) {
	for ; n < len(b); n++ {
		d := b[n] - '0'
		if d > 9 {
			break
		}
		v = v*10 + uint64(d)
	}
	switch {
	case n == 0 || (n > 1 && b[0] == '0'):
		return 0, 0, false
	case n < 20: // below 10^19, below 2^64
		return v, n, true
	case n == 20 && string(b[:20]) <= "18446744073709551615":
		return v, n, true
	}
	return 0, 0, false
}

// jsonStringLen is the length of the JSON string at the start of b, quotes
// included; -1 when b does not start with a complete one.
func jsonStringLen(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; ; i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		// The quote ends the string unless it is escaped: after an odd
		// number of backslashes.
		k := i
		for b[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i + 1
		}
	}
}

// The lower-case hex digits are checked and decoded 8 at a time, in a
// uint64 (little endian: its low byte is the first digit).
const (
	bytes01 = 0x0101010101010101
	bytes7f = 0x7f7f7f7f7f7f7f7f
	bytes80 = 0x8080808080808080
)

// hexDigits8 has the high bit of each of the 8 bytes of x that is a
// lower-case hex digit.
func hexDigits8(x uint64) uint64 {
	// The high bit of each byte b with m < b < n, exactly, byte per byte
	// (hasbetween, from Bit Twiddling Hacks): the sums neither borrow nor
	// carry from a byte to the next for b < 128, and ^x rules out b >= 128.
	t := x & bytes7f
	digits := (bytes01*(127+'9'+1) - t) & ^x & (t + bytes01*(127-('0'-1)))
	letters := (bytes01*(127+'f'+1) - t) & ^x & (t + bytes01*(127-('a'-1)))
	return (digits | letters) & bytes80
}

// unhex8 decodes 8 lower-case hex digits into 4 bytes, the first in the
// low byte.
func unhex8(x uint64) uint32 {
	// Each byte to its value: its low 4 bits, + 9 for a letter (bit 6).
	v := x&0x0f0f0f0f0f0f0f0f + (x>>6&bytes01)*9
	// Byte j is now digit j << 4 | digit j+1; keep the even ones.
	v = (v<<4 | v>>8) & 0x00ff00ff00ff00ff
	v = (v | v>>8) & 0x0000ffff0000ffff
	return uint32(v | v>>16)
}

func isHexHash(s []byte) bool {
	if len(s) != 64 {
		return false
	}
	s = s[:64]
	digits := uint64(bytes80)
	for i := 0; i < 64; i += 8 {
		digits &= hexDigits8(binary.LittleEndian.Uint64(s[i:]))
	}
	return digits == bytes80
}

// decodeHexHash decodes s, when it is 64 lower-case hex digits, into dst.
func decodeHexHash(dst *[sha256.Size]byte, s []byte) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	s = s[:2*sha256.Size]
	digits := uint64(bytes80)
	for i := 0; i < 2*sha256.Size; i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		digits &= hexDigits8(x)
		binary.LittleEndian.PutUint32(dst[i/2:], unhex8(x))
	}
	return digits == bytes80
}
