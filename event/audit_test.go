package event

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/event/audittest"
	"github.com/moteur/moteur/llm"
)

// testKey is the audit key of the tests; otherKey, another data
// directory's.
var (
	testKey  = bytes.Repeat([]byte{0x42}, AuditKeySize)
	otherKey = bytes.Repeat([]byte{0x17}, AuditKeySize)
)

// auditEvents returns n persisted events of session s1, of varied types,
// numbered from 1.
func auditEvents(n int) []Event {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	payloads := []struct {
		typ Type
		p   any
	}{
		{SessionStarted, SessionStartedPayload{Provider: "p", Model: "m", Tools: []string{"bash"}, MaxIterations: 5, Lang: "fr"}},
		{UserMessage, UserMessagePayload{Text: "écris <b>&</b> un fichier"}},
		{AssistantMessage, AssistantMessagePayload{Text: "ok", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "write", Arguments: `{"path":"a"}`}}, Round: 1}},
		{ToolResult, ToolResultPayload{CallID: "c1", Name: "write", Content: "wrote a", Risk: "write", Round: 1}},
		{ToolResult, ToolResultPayload{CallID: "c2", Name: "read", Content: "line\n\"quoted\"\u2028", Risk: "read", Round: 1}},
		{TurnCompleted, TurnCompletedPayload{Reason: StopNatural, Answer: "fait", Rounds: 1, Requests: 1}},
	}
	out := make([]Event, n)
	for i := range out {
		p := payloads[i%len(payloads)]
		out[i] = Event{Seq: uint64(i + 1), Type: p.typ, SessionID: "s1", Time: at.Add(time.Duration(i) * time.Second), Payload: p.p}
	}
	return out
}

// testStore stands for the session store: the heads it would hold, as
// session.Sink takes them from the audit sink after each record.
type testStore struct{ heads [][]byte }

func (s *testStore) audit() *AuditStore { return &AuditStore{Heads: s.heads} }

// write writes e to a, then records its head as the store would.
func (s *testStore) write(t testing.TB, a *AuditSink, e Event) {
	t.Helper()
	if err := a.Write(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	h, ok := a.Head(e.SessionID, e.Seq)
	if !ok || len(h) != AuditKeySize {
		t.Fatalf("no head for seq %d after its record: %x, %v", e.Seq, h, ok)
	}
	s.heads = append(s.heads, h)
}

func openTestAudit(t testing.TB, path string, every bool) *AuditSink {
	t.Helper()
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", SyncEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeAuditLog writes n events to a new log and returns its path and what
// the store holds of it.
func writeAuditLog(t testing.TB, n int) (string, *testStore) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	st := &testStore{}
	for _, e := range auditEvents(n) {
		st.write(t, a, e)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return path, st
}

func auditLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(b, []byte("\n"))[:bytes.Count(b, []byte("\n"))]
}

// check is the full check of a log of session s1 against st.
func check(st *testStore) AuditCheck {
	return AuditCheck{Key: testKey, SessionID: "s1", Store: st.audit()}
}

func TestAuditCleanLogVerifies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "logs")
	path := filepath.Join(dir, "audit.jsonl")
	a := openTestAudit(t, path, false)
	st := &testStore{}
	evs := auditEvents(25)
	for _, e := range evs {
		st.write(t, a, e)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Write(t.Context(), evs[0]); err == nil {
		t.Error("Write after Close must fail")
	}
	rep, err := VerifyAuditFile(path, check(st))
	if err != nil || rep.Records != 25 || rep.Unkeyed != 0 || !rep.Authenticated || rep.SessionID != "s1" ||
		rep.First != 0 || rep.Next != 25 || rep.Head != hex.EncodeToString(st.heads[24]) {
		t.Fatalf("VerifyAuditFile = %+v, %v; want 25 authenticated records", rep, err)
	}
	// Alone, without the store, the chain verifies too.
	if rep, err := VerifyAuditFile(path, AuditCheck{Key: testKey}); err != nil || rep.Records != 25 || rep.SessionID != "s1" {
		t.Fatalf("alone: %+v, %v", rep, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
	}
	// The events read back as they were written, each in the record whose
	// index is its seq - 1.
	for i, line := range auditLines(t, path) {
		var rec struct {
			Index uint64          `json:"index"`
			Event json.RawMessage `json:"event"`
			MAC   string          `json:"mac"`
			Hash  *string         `json:"hash"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || rec.Index != uint64(i) || rec.Hash != nil || len(rec.MAC) != 64 {
			t.Fatalf("line %d: %+v, %v", i+1, rec, err)
		}
		got, err := Decode(rec.Event)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(evs[i])
		if again, _ := json.Marshal(got); !bytes.Equal(again, want) || got.Seq != rec.Index+1 {
			t.Errorf("record %d: event %s, want %s", i, again, want)
		}
	}
	if rep, err := VerifyAudit(strings.NewReader(""), AuditCheck{Key: testKey}); rep.Records != 0 || err != nil {
		t.Errorf("empty log: %+v, %v", rep, err)
	}
}

// TestAuditCanonicalForm checks the writer's fast path against the
// definition, and the recipe the documentation gives other languages.
func TestAuditCanonicalForm(t *testing.T) {
	path, st := writeAuditLog(t, 12)
	prev := zeroHash
	for i, line := range auditLines(t, path) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		var rec struct {
			Index uint64          `json:"index"`
			Prev  string          `json:"prev"`
			Event json.RawMessage `json:"event"`
			MAC   string          `json:"mac"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		def, _ := json.Marshal(auditCanonical{Index: rec.Index, Prev: rec.Prev, Event: rec.Event})
		if fast := appendAuditCanonical(nil, rec.Index, rec.Prev, rec.Event); !bytes.Equal(fast, def) {
			t.Errorf("record %d: fast canonical form\n%s\ndiffers from the definition\n%s", i, fast, def)
		}
		// Drop ,"mac":"<64>"} and close the object: that is what is MACed.
		recipe := append(bytes.Clone(line[:len(line)-74]), '}')
		m := hmac.New(sha256.New, testKey)
		m.Write(recipe)
		if got := hex.EncodeToString(m.Sum(nil)); got != rec.MAC || !bytes.Equal(recipe, def) {
			t.Errorf("record %d: the documented recipe gives %s over %s, stored %s", i, got, recipe, rec.MAC)
		}
		if rec.MAC != hex.EncodeToString(st.heads[i]) {
			t.Errorf("record %d: mac %s, the head given to the store %x", i, rec.MAC, st.heads[i])
		}
		if rec.Prev != prev {
			t.Errorf("record %d: prev %s, want %s", i, rec.Prev, prev)
		}
		prev = rec.MAC
	}
}

func TestAuditReopenContinuesChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	evs := auditEvents(7)
	st := &testStore{}
	for i, part := range [][]Event{evs[:3], evs[3:3], evs[3:]} {
		cfg := AuditConfig{Path: path, Key: testKey, SessionID: "s1"}
		if i > 0 {
			cfg.Store = st.audit()
		}
		a, err := OpenAudit(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range part {
			st.write(t, a, e)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := VerifyAuditFile(path, check(st)); rep.Records != 7 || err != nil {
		t.Fatalf("VerifyAuditFile = %+v, %v; want 7, nil", rep, err)
	}
}

// TestAuditOpenRefusesABrokenLog: the whole file is verified before it is
// continued, not only its last line.
func TestAuditOpenRefusesABrokenLog(t *testing.T) {
	for name, c := range map[string]struct {
		edit   func([]byte) []byte
		line   string
		sentry error
	}{
		"torn":             {func(b []byte) []byte { return b[:len(b)-10] }, "line 6", ErrAuditTorn},
		"no newline":       {func(b []byte) []byte { return b[:len(b)-1] }, "line 6", ErrAuditTorn},
		"garbage":          {func(b []byte) []byte { return append(b, "{not json}\n"...) }, "line 7", nil},
		"blank":            {func(b []byte) []byte { return append(b, '\n') }, "line 7", nil},
		"edited last":      {func(b []byte) []byte { return bytes.Replace(b, []byte("fait"), []byte("faux"), 1) }, "line 6", nil},
		"edited mid-file":  {func(b []byte) []byte { return bytes.Replace(b, []byte("wrote a"), []byte("wrote b"), 1) }, "line 4", nil},
		"edited first":     {func(b []byte) []byte { return bytes.Replace(b, []byte(`"bash"`), []byte(`"bosh"`), 1) }, "line 1", nil},
		"first line gone":  {func(b []byte) []byte { return b[bytes.IndexByte(b, '\n')+1:] }, "line 1", nil},
		"last line gone":   {func(b []byte) []byte { return b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1] }, "line 6", ErrAuditShort},
		"emptied":          {func([]byte) []byte { return nil }, "line 1", ErrAuditShort},
		"rehashed the old": {func(b []byte) []byte { return audittest.Rehash(t, b, nil) }, "line 1", nil},
		"another key":      {func(b []byte) []byte { return audittest.Rehash(t, b, otherKey) }, "line 1", nil},
	} {
		t.Run(name, func(t *testing.T) {
			path, st := writeAuditLog(t, 6) // ends with TurnCompleted "fait"
			b, _ := os.ReadFile(path)
			if err := os.WriteFile(path, c.edit(b), 0o600); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			_, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: st.audit()})
			var ae *AuditError
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.line) || !errors.As(err, &ae) {
				t.Fatalf("OpenAudit = %v; want an *AuditError naming %s and %s", err, path, c.line)
			}
			if c.sentry != nil && !errors.Is(err, c.sentry) {
				t.Errorf("OpenAudit = %v, want %v", err, c.sentry)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Error("OpenAudit modified the broken log")
			}
		})
	}
}

// TestAuditDetectsTampering edits a clean log of 6 records and checks it
// against its store.
func TestAuditDetectsTampering(t *testing.T) {
	path, st := writeAuditLog(t, 6)
	lines := auditLines(t, path)
	join := func(ls ...[]byte) []byte { return bytes.Join(ls, nil) }
	whole := join(lines...)
	parsed := func(i int) auditLine {
		rec, reason := parseAuditLine(bytes.TrimSuffix(lines[i], []byte("\n")))
		if reason != "" {
			t.Fatal(reason)
		}
		return rec
	}
	edited := bytes.Replace(parsed(3).event, []byte("wrote a"), []byte("wrote b"), 1)
	remac := func(i int, event []byte, key []byte) []byte {
		b, _ := audittest.AppendRecord(nil, uint64(i), string(parsed(i).prev), event, key)
		return b
	}
	// A forged seventh record, chained onto the last, its event a copy of
	// the first renumbered.
	forged := bytes.Replace(parsed(0).event, []byte(`"seq":1,`), []byte(`"seq":7,`), 1)
	forge := func(key []byte) []byte {
		b, _ := audittest.AppendRecord(nil, 6, string(parsed(5).seal), forged, key)
		return b
	}
	otherSession := bytes.Replace(lines[2], []byte(`"session_id":"s1"`), []byte(`"session_id":"s2"`), 1)
	for _, c := range []struct {
		name   string
		log    []byte
		index  int
		reason string
		sentry error
	}{
		{"deleted line", join(lines[0], lines[1], lines[3], lines[4], lines[5]), 2, "index 3, want 2", nil},
		{"deleted first line", join(lines[1:]...), 0, "index 1, want 0", nil},
		{"deleted last line", join(lines[:5]...), 5, "missing: the log ends at record 4", ErrAuditShort},
		{"last three removed", join(lines[:3]...), 3, "store holds events up to seq 6 (3 records removed", ErrAuditShort},
		{"emptied", nil, 0, "missing: the log is empty", ErrAuditShort},
		{"reordered", join(lines[0], lines[2], lines[1], lines[3], lines[4], lines[5]), 1, "index 2, want 1", nil},
		{"duplicated", join(lines[0], lines[1], lines[1], lines[2], lines[3], lines[4], lines[5]), 2, "index 1, want 2", nil},
		{"truncated last line", whole[:len(whole)-20], 5, "truncated", ErrAuditTorn},
		{"edited event", join(lines[0], lines[1], lines[2], bytes.Replace(lines[3], []byte("wrote a"), []byte("wrote b"), 1), lines[4], lines[5]), 3, "mac mismatch", nil},
		{"edited event, mac recomputed with another key", join(lines[0], lines[1], lines[2], remac(3, edited, otherKey), lines[4], lines[5]), 3, "mac mismatch", nil},
		{"edited event, hashed the old way", join(lines[0], lines[1], lines[2], remac(3, edited, nil), lines[4], lines[5]), 3, "unkeyed record after keyed ones", nil},
		{"forged record appended, hashed the old way", join(append(lines, forge(nil))...), 6, "unkeyed record after keyed ones", nil},
		{"forged record appended with another key", join(append(lines, forge(otherKey))...), 6, "mac mismatch", nil},
		{"whole chain rehashed the old way", audittest.Rehash(t, whole, nil), 0, "unkeyed, but the store holds a head for seq 1", nil},
		{"whole chain rewritten with another key", audittest.Rehash(t, whole, otherKey), 0, "mac mismatch", nil},
		{"record of another session", join(lines[0], lines[1], otherSession, lines[3]), 2, `event of session "s2" in the log of session "s1"`, nil},
		{"event renumbered", join(lines[0], bytes.Replace(lines[1], []byte(`"seq":2,`), []byte(`"seq":9,`), 1)), 1, "event seq 9 in record 1", nil},
		{"blank inserted", join(lines[0], bytes.Replace(lines[1], []byte(`"event":`), []byte(`"event": `), 1), lines[2]), 1, "event is not an object", nil},
		{"member added", join(lines[0], bytes.Replace(lines[1], []byte(`{"index"`), []byte(`{"x":1,"index"`), 1)), 1, "not a record", nil},
		{"empty line", join(lines[0], []byte("\n"), lines[1]), 1, "empty line", nil},
		{"mac upper-cased", join(lines[0], bytes.ToUpper(lines[1])), 1, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := VerifyAudit(bytes.NewReader(c.log), check(st))
			var ae *AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("VerifyAudit = %+v, %v; want an *AuditError", rep, err)
			}
			if ae.Index != uint64(c.index) || rep.Records != min(c.index, bytes.Count(c.log, []byte("\n"))) || !strings.Contains(ae.Reason, c.reason) {
				t.Errorf("got %d records, %v; want record %d: …%s…", rep.Records, err, c.index, c.reason)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("record %d (line %d): ", c.index, ae.Line)) {
				t.Errorf("message %q", err)
			}
			if !errors.Is(err, c.sentry) && c.sentry != nil {
				t.Errorf("error %v does not wrap %v", err, c.sentry)
			}
		})
	}
}

// TestAuditWithoutKeyOrStore: what a log alone, or a log without the key,
// can and cannot prove.
func TestAuditWithoutKeyOrStore(t *testing.T) {
	path, st := writeAuditLog(t, 6)
	whole, _ := os.ReadFile(path)
	// Without the key, the chain, the form and the store's heads are
	// checked, not the MACs: the report says so.
	rep, err := VerifyAudit(bytes.NewReader(whole), AuditCheck{SessionID: "s1", Store: st.audit()})
	if err != nil || rep.Authenticated || rep.Records != 6 {
		t.Fatalf("without the key: %+v, %v; want 6 records, not authenticated", rep, err)
	}
	// A log rewritten with another key passes the chain, but not the
	// store's heads, even without the key.
	if _, err := VerifyAudit(bytes.NewReader(audittest.Rehash(t, whole, otherKey)), AuditCheck{Store: st.audit()}); err == nil ||
		!strings.Contains(err.Error(), "is not the head") {
		t.Errorf("another key, no key given, with the store: %v", err)
	}
	// A log rehashed the old way verifies alone, but as unkeyed records
	// only: integrity, not authenticity.
	rep, err = VerifyAudit(bytes.NewReader(audittest.Rehash(t, whole, nil)), AuditCheck{Key: testKey})
	if err != nil || rep.Unkeyed != 6 || rep.Records != 6 {
		t.Errorf("rehashed, alone: %+v, %v; want 6 unkeyed records", rep, err)
	}
	// Alone, a log cut after a whole record passes: only the store tells.
	lines := auditLines(t, path)
	if rep, err := VerifyAudit(bytes.NewReader(bytes.Join(lines[:4], nil)), AuditCheck{Key: testKey}); err != nil || rep.Records != 4 {
		t.Errorf("cut, alone: %+v, %v", rep, err)
	}
}

// TestAuditDetectsEveryFlippedByte flips each bit of each byte of a small
// log in turn: every flip must be caught, at the record holding the byte.
func TestAuditDetectsEveryFlippedByte(t *testing.T) {
	path, st := writeAuditLog(t, 4)
	log, _ := os.ReadFile(path)
	lineOf := func(i int) int { return bytes.Count(log[:i], []byte("\n")) }
	for i := range log {
		for bit := range 8 {
			bad := bytes.Clone(log)
			bad[i] ^= 1 << bit
			for _, c := range []AuditCheck{check(st), {Key: testKey}} {
				_, err := VerifyAudit(bytes.NewReader(bad), c)
				var ae *AuditError
				if !errors.As(err, &ae) {
					t.Fatalf("byte %d (%q) bit %d flipped: VerifyAudit = %v", i, log[i], bit, err)
				}
				if ae.Line-1 != lineOf(i) {
					t.Fatalf("byte %d (%q) bit %d flipped, in record %d: reported %v", i, log[i], bit, lineOf(i), err)
				}
			}
		}
	}
}

func TestAuditLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	st := &testStore{}
	big := strings.Repeat("0123456789abcdef ", 3<<20/17) // 3 MiB
	for i := range 3 {
		st.write(t, a, Event{Seq: uint64(i + 1), Type: ToolResult, SessionID: "s1", Payload: ToolResultPayload{Content: big}})
	}
	a.Close()
	if rep, err := VerifyAuditFile(path, check(st)); rep.Records != 3 || err != nil {
		t.Fatalf("VerifyAuditFile = %+v, %v", rep, err)
	}
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: st.audit()})
	if err != nil {
		t.Fatal(err)
	}
	if a.index != 3 {
		t.Errorf("reopened at index %d, want 3", a.index)
	}
	a.Close()
}

// failingWriter writes half of what it is given, then fails.
type failingWriter struct{ err error }

func (w failingWriter) Write(p []byte) (int, error) { return len(p) / 2, w.err }

func TestAuditWriteFailurePoisons(t *testing.T) {
	evs := auditEvents(3)
	t.Run("partial write", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		a := openTestAudit(t, path, false)
		defer a.Close()
		if err := a.Write(t.Context(), evs[0]); err != nil {
			t.Fatal(err)
		}
		disk := errors.New("no space left on device")
		w := a.w
		a.w = failingWriter{disk}
		err := a.Write(t.Context(), evs[1])
		if !errors.Is(err, disk) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Write on a full disk = %v", err)
		}
		a.w = w // the disk has room again: the sink stays refused
		if err := a.Write(t.Context(), evs[1]); !errors.Is(err, disk) {
			t.Fatalf("Write after a failure = %v, want the first failure", err)
		}
	})
	t.Run("descriptor closed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		a := openTestAudit(t, path, false)
		a.f.Close() // the descriptor dies under the sink
		if err := a.Write(t.Context(), evs[0]); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("Write to a closed file = %v", err)
		}
		if err := a.Write(t.Context(), evs[0]); err == nil {
			t.Fatal("a later Write must fail too")
		}
	})
	t.Run("short write", func(t *testing.T) {
		a := openTestAudit(t, filepath.Join(t.TempDir(), "audit.jsonl"), false)
		defer a.Close()
		a.w = failingWriter{nil} // a short write without an error
		if err := a.Write(t.Context(), evs[0]); err == nil {
			t.Fatal("a short write must fail")
		}
	})
	t.Run("sync", func(t *testing.T) {
		a := openTestAudit(t, filepath.Join(t.TempDir(), "audit.jsonl"), false)
		defer a.Close()
		a.sync = func() error { return errors.New("EIO") }
		if err := a.Write(t.Context(), evs[0]); err == nil { // SessionStarted syncs
			t.Fatal("a failed sync must fail the Write")
		}
		a.sync = func() error { return nil }
		if err := a.Write(t.Context(), evs[1]); err == nil {
			t.Fatal("a Write after a failed sync must fail")
		}
	})
}

// TestAuditWriteFailsOnceTheFileIsGone: a log removed, replaced, cut or
// written by another under the sink fails the next Write, for good. Each
// case first proves that a Write succeeded on the same sink.
func TestAuditWriteFailsOnceTheFileIsGone(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, path string){
		"file removed":      func(t *testing.T, path string) { must(t, os.Remove(path)) },
		"directory removed": func(t *testing.T, path string) { must(t, os.RemoveAll(filepath.Dir(path))) },
		"removed, then another at the path": func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			must(t, err)
			must(t, os.Remove(path))
			must(t, os.WriteFile(path, b, 0o600)) // the same bytes, maybe the same inode
		},
		"replaced by a rename": func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			must(t, err)
			must(t, os.WriteFile(path+".new", b, 0o600))
			must(t, os.Rename(path+".new", path))
		},
		"moved away": func(t *testing.T, path string) { must(t, os.Rename(path, path+".old")) },
		"cut":        func(t *testing.T, path string) { must(t, os.Truncate(path, 10)) },
		"written by another": func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			must(t, err)
			_, err = f.WriteString("{}\n")
			must(t, errors.Join(err, f.Close()))
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit", "s1.jsonl")
			a := openTestAudit(t, path, false)
			defer a.Close()
			evs := auditEvents(3)
			if err := a.Write(t.Context(), evs[0]); err != nil {
				t.Fatalf("the Write before the change: %v", err)
			}
			change(t, path)
			err := a.Write(t.Context(), evs[1])
			if !errors.Is(err, ErrAuditFileGone) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Write after the change = %v, want ErrAuditFileGone naming %s", err, path)
			}
			if err := a.Write(t.Context(), evs[1]); !errors.Is(err, ErrAuditFileGone) {
				t.Fatalf("a later Write = %v, want the same failure", err)
			}
			if _, ok := a.Head("s1", 2); ok {
				t.Error("a failed Write gave a head")
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAuditMasksSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	p := UserMessagePayload{Text: "use " + tOpenAI + " and\npassword: hunter2", HookContext: "GITHUB_TOKEN=" + tGitHub}
	e := Event{Seq: 1, Type: UserMessage, SessionID: "s1", Payload: p}
	if err := a.Write(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	a.Close()
	b, _ := os.ReadFile(path)
	for _, secret := range []string{tOpenAI, "hunter2", tGitHub} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the audit log holds the secret %q: %s", secret, b)
		}
	}
	if !bytes.Contains(b, []byte("[REDACTED:openai_key]")) || !bytes.Contains(b, []byte("password: [REDACTED:env_secret]")) {
		t.Errorf("the audit log lacks the markers: %s", b)
	}
	if e.Payload.(UserMessagePayload) != p || !strings.Contains(p.Text, tOpenAI) {
		t.Error("Write masked the caller's event")
	}
	if rep, err := VerifyAuditFile(path, AuditCheck{Key: testKey}); rep.Records != 1 || err != nil {
		t.Errorf("VerifyAuditFile = %+v, %v", rep, err)
	}
}

// TestAuditRefusesWhatIsNotTheNextRecord: ephemeral events, another
// session's, and seqs that are not the next record's are refused, and the
// sink goes on.
func TestAuditRefusesWhatIsNotTheNextRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	defer a.Close()
	first := auditEvents(1)[0]
	other := first
	other.SessionID = "s2"
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{Type: AssistantDelta, SessionID: "s1", Ephemeral: true, Payload: DeltaPayload{Text: "x"}}, "ephemeral"},
		{Event{Type: ReasoningDelta, SessionID: "s1", Payload: DeltaPayload{Text: "x"}}, "ephemeral"}, // the spec says ephemeral
		{Event{Type: Error, SessionID: "s1", Ephemeral: true, Payload: ErrorPayload{Message: "audit"}}, "ephemeral"},
		{other, `session "s2"`},
		{auditEvents(2)[1], "refusing event seq 2: the next record is 0, for seq 1"},
		{Event{Type: UserMessage, SessionID: "s1", Payload: UserMessagePayload{}}, "refusing event seq 0"},
	} {
		if err := a.Write(t.Context(), c.e); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write(%s seq %d of %s) = %v, want a refusal: %s", c.e.Type, c.e.Seq, c.e.SessionID, err, c.want)
		}
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("refused events were written: %s", b)
	}
	// A refusal is no failure: the sink goes on.
	if err := a.Write(t.Context(), first); err != nil {
		t.Errorf("Write after a refusal = %v", err)
	}
	if h, ok := a.Head("s1", 1); !ok || len(h) != AuditKeySize {
		t.Errorf("Head(s1, 1) = %x, %v", h, ok)
	}
	for _, q := range []struct {
		id  string
		seq uint64
	}{{"s2", 1}, {"s1", 2}, {"s1", 0}} {
		if _, ok := a.Head(q.id, q.seq); ok {
			t.Errorf("Head(%s, %d): a head for a record never written", q.id, q.seq)
		}
	}
}

func TestAuditOpenRefusesABadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, cfg := range []AuditConfig{
		{Key: testKey, SessionID: "s1"},
		{Path: path, SessionID: "s1"},
		{Path: path, Key: testKey[:16], SessionID: "s1"},
		{Path: path, Key: testKey},
		{Path: path, Key: testKey, SessionID: "s1", Store: &AuditStore{First: 2}},
		{Path: path, Key: testKey, SessionID: "s1", Store: &AuditStore{Heads: [][]byte{{1, 2}}}},
	} {
		if a, err := OpenAudit(cfg); err == nil {
			a.Close()
			t.Errorf("OpenAudit(%+v) accepted", cfg)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("a refused configuration created the log")
	}
}

func TestAuditSyncPolicy(t *testing.T) {
	cases := []struct {
		e    Event
		sync bool
	}{
		{Event{Type: SessionStarted, Payload: SessionStartedPayload{}}, true},
		{Event{Type: UserMessage, Payload: UserMessagePayload{Text: "q"}}, false},
		{Event{Type: AssistantMessage, Payload: AssistantMessagePayload{}}, false},
		{Event{Type: ToolResult, Payload: ToolResultPayload{Risk: "read"}}, false},
		{Event{Type: ToolResult, Payload: ToolResultPayload{Risk: "probe"}}, false},
		{Event{Type: ToolResult, Payload: ToolResultPayload{Risk: "write"}}, true},
		{Event{Type: ToolResult, Payload: &ToolResultPayload{Risk: "destructive"}}, true},
		{Event{Type: ToolResult, Payload: ToolResultPayload{}}, false},
		{Event{Type: PermissionRequested, Payload: PermissionRequestedPayload{}}, true},
		{Event{Type: ProviderRetry, Payload: ProviderRetryPayload{}}, false},
		{Event{Type: Error, Payload: ErrorPayload{}}, true},
		{Event{Type: Rewound, Payload: RewoundPayload{}}, true},
		{Event{Type: ContextCompacted, Payload: ContextCompactedPayload{}}, false},
		{Event{Type: "FromTheFuture", Payload: json.RawMessage(`{}`)}, false},
		{Event{Type: TurnCompleted, Payload: TurnCompletedPayload{}}, true},
	}
	for _, every := range []bool{false, true} {
		a := openTestAudit(t, filepath.Join(t.TempDir(), "audit.jsonl"), every)
		syncs := 0
		real := a.sync
		a.sync = func() error { syncs++; return real() }
		for i, c := range cases {
			c.e.Seq, c.e.SessionID = uint64(i+1), "s1"
			before := syncs
			if err := a.Write(t.Context(), c.e); err != nil {
				t.Fatal(err)
			}
			if want := c.sync || every; (syncs > before) != want {
				t.Errorf("SyncEvery %v, %s %+v: synced %v, want %v", every, c.e.Type, c.e.Payload, syncs > before, want)
			}
		}
		before := syncs
		if err := a.Close(); err != nil || syncs != before+1 {
			t.Errorf("Close = %v with %d syncs, want one", err, syncs-before)
		}
	}
}

// TestAuditConcurrentUse: Write and Head from several goroutines (run with
// -race); the records are those of the seqs in order.
func TestAuditConcurrentUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	evs := auditEvents(300)
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range 4 {
		wg.Go(func() {
			for {
				mu.Lock() // what the engine's per-session lock does
				if next == len(evs) {
					mu.Unlock()
					return
				}
				e := evs[next]
				next++
				err := a.Write(t.Context(), e)
				mu.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			for seq := range uint64(300) {
				a.Head("s1", seq)
			}
		})
	}
	wg.Wait()
	a.Close()
	if rep, err := VerifyAuditFile(path, AuditCheck{Key: testKey, SessionID: "s1"}); rep.Records != 300 || err != nil {
		t.Fatalf("VerifyAuditFile = %+v, %v; want 300", rep, err)
	}
}

// TestAuditAheadOfTheStore: the record a crash kept from the store is handed
// back once, and only for a session the store has.
func TestAuditAheadOfTheStore(t *testing.T) {
	path, st := writeAuditLog(t, 4)
	short := &testStore{heads: st.heads[:3]}
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: short.audit()})
	if err != nil {
		t.Fatal(err)
	}
	un := a.Unstored()
	want, _ := json.Marshal(MaskEvent(auditEvents(4)[3]))
	if len(un) != 1 || un[0].Index != 3 || !bytes.Equal(un[0].MAC, st.heads[3]) {
		t.Fatalf("Unstored = %+v, want record 3 with the head %x", un, st.heads[3])
	}
	if got, _ := json.Marshal(un[0].Event); !bytes.Equal(got, want) {
		t.Errorf("unstored event %s, want %s", got, want)
	}
	// The next record follows it.
	if err := a.Write(t.Context(), auditEvents(4)[2]); err == nil {
		t.Error("a record for seq 3 was written after the log's record 3")
	}
	e5 := auditEvents(5)[4]
	if err := a.Write(t.Context(), e5); err != nil {
		t.Fatal(err)
	}
	a.Close()

	// Two records ahead is not what a crash leaves: refused.
	if _, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: short.audit()}); !errors.Is(err, ErrAuditAhead) {
		t.Errorf("two records ahead: %v, want ErrAuditAhead", err)
	}
	// A session the store does not have is never rebuilt from its log.
	if _, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1"}); err == nil || !strings.Contains(err.Error(), "use another session id") {
		t.Errorf("a log without its session in the store: %v", err)
	}
	// VerifyAudit reports the records ahead, naming the first.
	_, err = VerifyAuditFile(path, check(short))
	var ae *AuditError
	if !errors.As(err, &ae) || ae.Index != 3 || ae.Line != 4 || !errors.Is(err, ErrAuditAhead) {
		t.Errorf("VerifyAuditFile = %v; want record 3 (line 4) ahead of the store", err)
	}
}

// TestAuditForkLog: a fork's log starts at its fork seq, chained onto the
// head its store copied from the source.
func TestAuditForkLog(t *testing.T) {
	src, st := writeAuditLog(t, 5)
	forkStore := &testStore{heads: append([][]byte(nil), st.heads[:3]...)}
	path := filepath.Join(t.TempDir(), "kid.jsonl")
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "kid", Store: &AuditStore{Heads: forkStore.heads, First: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range auditEvents(6)[3:] {
		e.SessionID = "kid"
		forkStore.write(t, a, e)
	}
	a.Close()
	lines := auditLines(t, path)
	if !bytes.HasPrefix(lines[0], fmt.Appendf(nil, `{"index":3,"prev":"%x",`, st.heads[2])) {
		t.Fatalf("the fork's first record %s does not chain onto the source's record 2", lines[0])
	}
	full := AuditCheck{Key: testKey, SessionID: "kid", Store: &AuditStore{Heads: forkStore.heads, First: 3}}
	if rep, err := VerifyAuditFile(path, full); err != nil || rep.First != 3 || rep.Records != 3 || rep.Next != 6 {
		t.Fatalf("the fork's log: %+v, %v", rep, err)
	}
	if rep, err := VerifyAuditFile(path, AuditCheck{Key: testKey}); err != nil || rep.First != 3 || rep.SessionID != "kid" {
		t.Fatalf("the fork's log alone: %+v, %v", rep, err)
	}
	// The link to the source: its record 2 has the head the fork copied.
	f, _ := os.Open(src)
	defer f.Close()
	if seal, keyed, err := AuditSealOf(f, 3); err != nil || !keyed || seal != hex.EncodeToString(forkStore.heads[2]) {
		t.Errorf("AuditSealOf(source, 3) = %s, %v, %v", seal, keyed, err)
	}
	// A fork's log that chains elsewhere, or starts elsewhere, is refused.
	bad := &AuditStore{Heads: append([][]byte{st.heads[0], st.heads[1], st.heads[3]}, forkStore.heads[3:]...), First: 3}
	if _, err := VerifyAuditFile(path, AuditCheck{Key: testKey, Store: bad}); err == nil || !strings.Contains(err.Error(), "where this fork's log starts") {
		t.Errorf("another copied head: %v", err)
	}
	if _, err := VerifyAuditFile(path, AuditCheck{Key: testKey, Store: &AuditStore{Heads: forkStore.heads, First: 2}}); err == nil {
		t.Error("a fork's log checked from another fork seq passed")
	}
}

// TestAuditEarlierVersionsLogs: the unkeyed logs of v0.x (testdata/audit-v0,
// written by Moteur before the keyed chain) verify as what they are, and a
// continued one switches to keyed records, the switch authenticating them.
func TestAuditEarlierVersionsLogs(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "audit-v0", "*.jsonl"))
	if len(paths) < 2 {
		t.Fatalf("committed logs missing: %v", paths)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			old, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			n := bytes.Count(old, []byte("\n"))
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			st := &testStore{heads: make([][]byte, n)} // no heads: an earlier version's store
			rep, err := VerifyAudit(bytes.NewReader(old), AuditCheck{Key: testKey, SessionID: id, Store: st.audit()})
			if err != nil || rep.Records != n || rep.Unkeyed != n {
				t.Fatalf("%+v, %v; want %d unkeyed records", rep, err, n)
			}
			// The session continues: keyed records from the next index.
			path := filepath.Join(t.TempDir(), id+".jsonl")
			must(t, os.WriteFile(path, old, 0o600))
			a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: id, Store: st.audit()})
			if err != nil {
				t.Fatal(err)
			}
			e := Event{Seq: uint64(n + 1), Type: UserMessage, SessionID: id, Payload: UserMessagePayload{Text: "encore"}}
			st.write(t, a, e)
			a.Close()
			rep, err = VerifyAuditFile(path, AuditCheck{Key: testKey, SessionID: id, Store: st.audit()})
			if err != nil || rep.Records != n+1 || rep.Unkeyed != n || !rep.Authenticated {
				t.Fatalf("continued: %+v, %v", rep, err)
			}
			lines := auditLines(t, path)
			last, _ := parseAuditLine(bytes.TrimSuffix(lines[n], []byte("\n")))
			prev, _ := parseAuditLine(bytes.TrimSuffix(lines[n-1], []byte("\n")))
			if !last.keyed || !bytes.Equal(last.prev, prev.seal) {
				t.Fatalf("the first keyed record %s does not chain onto the last unkeyed one", lines[n])
			}
			// The switch pins the unkeyed prefix: rewriting it, even with
			// its hashes recomputed, breaks the first keyed record.
			edited := audittest.Rehash(t, bytes.Replace(bytes.Join(lines[:n], nil), []byte(`"lang":"fr"`), []byte(`"lang":"en"`), 1), nil)
			_, err = VerifyAudit(bytes.NewReader(append(edited, lines[n]...)), AuditCheck{Key: testKey, SessionID: id, Store: st.audit()})
			if !strings.Contains(fmt.Sprint(err), fmt.Sprintf("record %d ", n)) || !strings.Contains(fmt.Sprint(err), "not the previous record's mac") {
				t.Errorf("a rewritten unkeyed prefix: %v; want record %d to break", err, n)
			}
		})
	}
}

// TestAuditEarlierVersionsForkLog: earlier versions started a fork's log at
// index 0, its first event of seq fork seq + 1. It verifies, and continues
// with keyed records numbered by seq.
func TestAuditEarlierVersionsForkLog(t *testing.T) {
	const forkSeq = 4
	var log []byte
	prev := zeroHash
	for i, e := range auditEvents(6)[forkSeq:] {
		e.SessionID = "kid"
		b, _ := json.Marshal(e)
		log, prev = audittest.AppendRecord(log, uint64(i), prev, b, nil)
	}
	st := &testStore{heads: make([][]byte, 6)} // an earlier version's: no heads
	chk := AuditCheck{Key: testKey, SessionID: "kid", Store: &AuditStore{Heads: st.heads, First: forkSeq}}
	rep, err := VerifyAudit(bytes.NewReader(log), chk)
	if err != nil || rep.Records != 2 || rep.Unkeyed != 2 || rep.First != forkSeq || rep.Next != 6 {
		t.Fatalf("%+v, %v", rep, err)
	}
	if rep, err := VerifyAudit(bytes.NewReader(log), AuditCheck{Key: testKey}); err != nil || rep.First != forkSeq {
		t.Fatalf("alone: %+v, %v", rep, err)
	}
	path := filepath.Join(t.TempDir(), "kid.jsonl")
	must(t, os.WriteFile(path, log, 0o600))
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "kid", Store: chk.Store})
	if err != nil {
		t.Fatal(err)
	}
	e := auditEvents(7)[6]
	e.SessionID = "kid"
	st.write(t, a, e)
	a.Close()
	chk.Store.Heads = st.heads
	if rep, err := VerifyAuditFile(path, chk); err != nil || rep.Records != 3 || rep.Next != 7 {
		t.Fatalf("continued: %+v, %v", rep, err)
	}
	if lines := auditLines(t, path); !bytes.HasPrefix(lines[2], fmt.Appendf(nil, `{"index":6,"prev":"%s",`, prev)) {
		t.Errorf("the first keyed record %s is not numbered by seq, chained onto the last hash", lines[2])
	}
}

// recordingAnchor keeps the heads it is given; it fails with err.
type recordingAnchor struct {
	heads []string
	err   error
}

func (r *recordingAnchor) Anchor(sessionID string, index uint64, mac string) error {
	r.heads = append(r.heads, fmt.Sprintf("%s/%d/%s", sessionID, index, mac))
	return r.err
}

func TestAuditAnchor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	anchor := &recordingAnchor{}
	a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Anchor: anchor})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	st := &testStore{}
	for _, e := range auditEvents(2) {
		st.write(t, a, e)
	}
	if want := []string{fmt.Sprintf("s1/0/%x", st.heads[0]), fmt.Sprintf("s1/1/%x", st.heads[1])}; fmt.Sprint(anchor.heads) != fmt.Sprint(want) {
		t.Errorf("anchored %v, want %v", anchor.heads, want)
	}
	anchor.err = errors.New("syslog down")
	if err := a.Write(t.Context(), auditEvents(3)[2]); !errors.Is(err, anchor.err) {
		t.Errorf("Write with a failing anchor = %v", err)
	}
	if len(anchor.heads) != 3 {
		t.Errorf("the anchor was not tried: %v", anchor.heads)
	}
}

// benchEvent is a tool result of 2 KiB.
func benchEvent() Event {
	return Event{Seq: 1, Type: ToolResult, SessionID: "s1", Time: time.Now(),
		Payload: ToolResultPayload{CallID: "c1", Name: "read_file", Content: benchText(2 << 10), Risk: "read"}}
}

// BenchmarkAuditWrite writes a record: mask, encode, the file check (one
// fstat, one stat), the HMAC, one write (and an fsync with SyncEvery).
func BenchmarkAuditWrite(b *testing.B) {
	e := benchEvent()
	for _, every := range []bool{false, true} {
		b.Run(fmt.Sprintf("SyncEvery=%v", every), func(b *testing.B) {
			a := openTestAudit(b, filepath.Join(b.TempDir(), "audit.jsonl"), every)
			defer a.Close()
			b.ReportAllocs()
			for b.Loop() {
				e.Seq = a.index + 1
				if err := a.Write(b.Context(), e); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkAuditOpen100k opens (and so verifies, all of it, against the
// store's heads) a log of 100 000 records of the kinds auditEvents makes,
// and verifies it alone.
func BenchmarkAuditOpen100k(b *testing.B) {
	const n = 100_000
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	a := openTestAudit(b, path, false)
	st := &testStore{}
	evs := auditEvents(6)
	for i := range n {
		e := evs[i%len(evs)]
		e.Seq = uint64(i + 1)
		st.write(b, a, e)
	}
	a.Close()
	fi, _ := os.Stat(path)
	b.Logf("%d records, %d MB", n, fi.Size()>>20)
	// Without a seal (a crash, a copy), the whole log is verified; the
	// close seals it, and the seal is removed again (a few µs).
	b.Run("OpenAudit", func(b *testing.B) {
		for b.Loop() {
			_ = os.Remove(SealPath(path))
			a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: st.audit()})
			if err != nil {
				b.Fatal(err)
			}
			a.Close()
		}
		b.ReportMetric(float64(fi.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	})
	// Sealed by the last close, and unchanged since: what continuing a
	// session the previous process closed costs.
	b.Run("OpenAuditSealed", func(b *testing.B) {
		for b.Loop() {
			a, err := OpenAudit(AuditConfig{Path: path, Key: testKey, SessionID: "s1", Store: st.audit()})
			if err != nil {
				b.Fatal(err)
			}
			a.Close()
		}
	})
	b.Run("VerifyAuditFile", func(b *testing.B) {
		for b.Loop() {
			if rep, err := VerifyAuditFile(path, AuditCheck{Key: testKey}); rep.Records != n || err != nil {
				b.Fatal(rep, err)
			}
		}
		b.ReportMetric(float64(fi.Size())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s")
	})
}
