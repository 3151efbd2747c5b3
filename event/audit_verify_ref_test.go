package event

// The sequential verifier as it was before verification went by blocks and
// in parallel, copied verbatim but for its names: the reference the new
// verifier's reports and errors must equal, on any log.

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
	"strconv"
)

// refVerifyAudit checks an audit log, all of it: the form of each record, its
// place in the chain, its event's seq and session, its MAC with check.Key
// (or the hash of an unkeyed record), and, with check.Store, one record per
// stored event, each with the MAC the store holds for it. On a log that
// does not verify, err is an *AuditError naming the first bad record (or
// the first missing one), and the report counts the good ones before it.
// An empty log is valid, unless the store holds events. Lines may be of any
// length.
func refVerifyAudit(r io.Reader, check AuditCheck) (AuditReport, error) {
	v := newRefVerifier(check)
	if check.Store != nil {
		if err := check.Store.check(); err != nil {
			return v.report(), fmt.Errorf("audit log: %w", err)
		}
	}
	br := bufio.NewReaderSize(r, 256<<10)
	var buf []byte
	for {
		line, complete, err := refReadAuditLine(br, buf[:0])
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

// refVerifier checks a log one record at a time.
type refVerifier struct {
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
func (v *refVerifier) report() AuditReport {
	if v.rep.Records > 0 {
		v.rep.Head = string(v.head[:])
	}
	return v.rep
}

func newRefVerifier(check AuditCheck) *refVerifier {
	v := &refVerifier{check: check, plain: sha256.New()}
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
func (v *refVerifier) fail(reason string, err error) error {
	return &AuditError{Index: v.rep.Next, Line: v.lines + 1, Reason: reason, Err: err}
}

// record checks one complete line.
func (v *refVerifier) record(line []byte) error {
	rec, reason := refParseAuditLine(line)
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
func (v *refVerifier) seal(line []byte, rec refAuditLine) string {
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

// refCloseBrace ends a record's canonical form.
var refCloseBrace = []byte{'}'}

// sealMatches computes h (the hash, or the HMAC with the key) of a record's
// canonical form — body, then '}' — into v.hexSum, in hex, and reports
// whether it is seal.
func (v *refVerifier) sealMatches(h hash.Hash, body, seal []byte) bool {
	h.Reset()
	h.Write(body)
	h.Write(refCloseBrace)
	v.sum = h.Sum(v.sum[:0])
	hex.Encode(v.hexSum[:], v.sum)
	return bytes.Equal(v.hexSum[:], seal)
}

// end checks, at the end of the log, that the store holds no more events
// than the log records, and no fewer.
func (v *refVerifier) end() error {
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

// refReadAuditLine reads one line into buf, without its end of line; complete
// is false at the end of the input (line then holds a torn last line, if
// any). Unlike bufio.Scanner it has no length limit: events can be MBs.
func refReadAuditLine(br *bufio.Reader, buf []byte) (line []byte, complete bool, err error) {
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

// refAuditLine is a record as read back: slices of its line.
type refAuditLine struct {
	index   uint64
	prev    []byte // 64 hex digits
	event   []byte
	seal    []byte // the mac, or the hash of an unkeyed record: 64 hex digits
	keyed   bool
	suffix  int // the length of the seal's member and the closing '}'
	seq     uint64
	session []byte // the event's session_id, as JSON
}

// refParseAuditLine reads a line of the exact form of a record; reason says
// what is wrong with it. The event is only read as far as its seq, type and
// session id: what the chain needs.
func refParseAuditLine(line []byte) (rec refAuditLine, reason string) {
	if len(line) == 0 {
		return rec, "empty line"
	}
	rest, ok := bytes.CutPrefix(line, []byte(`{"index":`))
	if !ok {
		return rec, `not a record: it does not begin {"index":`
	}
	var n int
	if rec.index, n, ok = refParseUint(rest); !ok {
		return rec, "index is not a number in canonical form"
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"prev":"`)); !ok || len(rest) < 64 || !refIsHexHash(rest[:64]) {
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
	if !refIsHexHash(rec.seal) || string(rest[l-2:]) != `"}` {
		return rec, "the mac (or hash) is not 64 lower-case hex digits closing the record"
	}
	rec.event = rest[:l-rec.suffix]
	if len(rec.event) < 2 || rec.event[0] != '{' || rec.event[len(rec.event)-1] != '}' {
		return rec, "event is not an object"
	}
	if rec.seq, rec.session, ok = refParseEventHead(rec.event); !ok {
		return rec, `event does not begin {"seq":S,"type":T,"session_id":I`
	}
	return rec, ""
}

// refParseEventHead reads the seq and the session id (as JSON) that begin an
// event encoded by json.Marshal.
func refParseEventHead(e []byte) (seq uint64, session []byte, ok bool) {
	rest, ok := bytes.CutPrefix(e, []byte(`{"seq":`))
	if !ok {
		return 0, nil, false
	}
	seq, n, ok := refParseUint(rest)
	if !ok {
		return 0, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"type":`)); !ok {
		return 0, nil, false
	}
	if n = refJSONStringLen(rest); n < 0 {
		return 0, nil, false
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"session_id":`)); !ok {
		return 0, nil, false
	}
	if n = refJSONStringLen(rest); n < 0 {
		return 0, nil, false
	}
	return seq, rest[:n], true
}

// refParseUint reads a decimal number without leading zeros at the start of b.
func refParseUint(b []byte) (v uint64, n int, ok bool) {
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 || (n > 1 && b[0] == '0') {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(string(b[:n]), 10, 64)
	return v, n, err == nil
}

// refJSONStringLen is the length of the JSON string at the start of b, quotes
// included; -1 when b does not start with a complete one.
func refJSONStringLen(b []byte) int {
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

func refIsHexHash(s []byte) bool {
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
