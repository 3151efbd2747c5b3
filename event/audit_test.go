package event

import (
	"bytes"
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

	"github.com/moteur/moteur/llm"
)

// auditEvents returns n persisted events of varied types, numbered from 1.
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

func openTestAudit(t testing.TB, path string, every bool) *AuditSink {
	t.Helper()
	a, err := OpenAudit(AuditConfig{Path: path, SyncEvery: every})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// writeAuditLog writes n events to a new log and returns its path.
func writeAuditLog(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	for _, e := range auditEvents(n) {
		if err := a.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func auditLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(b, []byte("\n"))[:bytes.Count(b, []byte("\n"))]
}

func TestAuditCleanLogVerifies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "logs")
	path := filepath.Join(dir, "audit.jsonl")
	a := openTestAudit(t, path, false)
	evs := auditEvents(25)
	for _, e := range evs {
		if err := a.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Write(t.Context(), evs[0]); err == nil {
		t.Error("Write after Close must fail")
	}
	if n, err := VerifyAuditFile(path); n != 25 || err != nil {
		t.Fatalf("VerifyAuditFile = %d, %v; want 25, nil", n, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", fi.Mode().Perm())
	}
	// The events read back as they were written.
	for i, line := range auditLines(t, path) {
		var rec struct {
			Index uint64          `json:"index"`
			Event json.RawMessage `json:"event"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || rec.Index != uint64(i) {
			t.Fatalf("line %d: index %d, %v", i+1, rec.Index, err)
		}
		got, err := Decode(rec.Event)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(evs[i])
		if again, _ := json.Marshal(got); !bytes.Equal(again, want) {
			t.Errorf("record %d: event %s, want %s", i, again, want)
		}
	}
	if n, err := VerifyAudit(strings.NewReader("")); n != 0 || err != nil {
		t.Errorf("empty log: %d, %v", n, err)
	}
}

// TestAuditCanonicalForm checks the writer's fast path against the
// definition, and the recipe the documentation gives other languages.
func TestAuditCanonicalForm(t *testing.T) {
	path := writeAuditLog(t, 12)
	prev := zeroHash
	for i, line := range auditLines(t, path) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		var rec auditRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		def, _ := json.Marshal(auditCanonical{Index: rec.Index, Prev: rec.Prev, Event: rec.Event})
		if fast := appendAuditCanonical(nil, rec.Index, rec.Prev, rec.Event); !bytes.Equal(fast, def) {
			t.Errorf("record %d: fast canonical form\n%s\ndiffers from the definition\n%s", i, fast, def)
		}
		// Drop ,"hash":"<64>"} and close the object: that is what is hashed.
		recipe := append(bytes.Clone(line[:len(line)-auditHashSuffixLen]), '}')
		sum := sha256.Sum256(recipe)
		if got := hex.EncodeToString(sum[:]); got != rec.Hash || !bytes.Equal(recipe, def) {
			t.Errorf("record %d: the documented recipe gives %s over %s, stored %s", i, got, recipe, rec.Hash)
		}
		if rec.Prev != prev {
			t.Errorf("record %d: prev %s, want %s", i, rec.Prev, prev)
		}
		prev = rec.Hash
	}
}

func TestAuditReopenContinuesChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	evs := auditEvents(7)
	for _, part := range [][]Event{evs[:3], evs[3:3], evs[3:]} {
		a := openTestAudit(t, path, false)
		for _, e := range part {
			if err := a.Write(t.Context(), e); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := VerifyAuditFile(path); n != 7 || err != nil {
		t.Fatalf("VerifyAuditFile = %d, %v; want 7, nil", n, err)
	}
}

func TestAuditOpenRefusesBrokenEnd(t *testing.T) {
	for name, c := range map[string]struct {
		edit func([]byte) []byte
		line string
	}{
		"torn":         {func(b []byte) []byte { return b[:len(b)-10] }, "line 3"},
		"no newline":   {func(b []byte) []byte { return b[:len(b)-1] }, "line 3"},
		"garbage":      {func(b []byte) []byte { return append(b, "{not json}\n"...) }, "line 4"},
		"blank":        {func(b []byte) []byte { return append(b, '\n') }, "line 4"},
		"edited event": {func(b []byte) []byte { return bytes.Replace(b, []byte("fait"), []byte("faux"), 1) }, "line 3"},
		"wrong index": {func(b []byte) []byte {
			return b[bytes.IndexByte(b, '\n')+1:] // the first line gone
		}, "line 2"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			a := openTestAudit(t, path, false)
			for _, e := range auditEvents(6)[3:] { // ends with TurnCompleted "fait"
				if err := a.Write(t.Context(), e); err != nil {
					t.Fatal(err)
				}
			}
			a.Close()
			b, _ := os.ReadFile(path)
			if err := os.WriteFile(path, c.edit(b), 0o600); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			_, err := OpenAudit(AuditConfig{Path: path})
			var ae *AuditError
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.line) || !errors.As(err, &ae) {
				t.Fatalf("OpenAudit = %v; want an *AuditError naming %s and %s", err, path, c.line)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
				t.Error("OpenAudit modified the broken log")
			}
		})
	}
}

// TestAuditDetectsTampering edits a clean log of 6 records.
func TestAuditDetectsTampering(t *testing.T) {
	path := writeAuditLog(t, 6)
	lines := auditLines(t, path)
	join := func(ls ...[]byte) []byte { return bytes.Join(ls, nil) }
	rehash := func(line []byte, edit func(*auditRecord)) []byte {
		var rec auditRecord
		if err := json.Unmarshal(bytes.TrimSuffix(line, []byte("\n")), &rec); err != nil {
			t.Fatal(err)
		}
		edit(&rec)
		canon := appendAuditCanonical(nil, rec.Index, rec.Prev, rec.Event)
		sum := sha256.Sum256(canon)
		return fmt.Appendf(nil, "%s,\"hash\":\"%x\"}\n", canon[:len(canon)-1], sum)
	}
	editEvent := func(r *auditRecord) { r.Event = bytes.Replace(r.Event, []byte("wrote a"), []byte("wrote b"), 1) }
	for _, c := range []struct {
		name   string
		log    []byte
		index  int
		reason string
	}{
		{"deleted line", join(lines[0], lines[1], lines[3], lines[4], lines[5]), 2, "index 3, want 2"},
		{"deleted first line", join(lines[1:]...), 0, "index 1, want 0"},
		{"deleted last line", join(lines[:5]...), -1, ""}, // undetectable: see the package comment
		{"reordered", join(lines[0], lines[2], lines[1], lines[3], lines[4], lines[5]), 1, "index 2, want 1"},
		{"duplicated", join(lines[0], lines[1], lines[1], lines[2], lines[3], lines[4], lines[5]), 2, "index 1, want 2"},
		{"truncated last line", join(lines...)[:len(join(lines...))-20], 5, "truncated"},
		{"edited event", join(lines[0], lines[1], lines[2], bytes.Replace(lines[3], []byte("wrote a"), []byte("wrote b"), 1), lines[4], lines[5]), 3, "hash mismatch"},
		{"edited event, hash recomputed", join(lines[0], lines[1], lines[2], rehash(lines[3], editEvent), lines[4], lines[5]), 4, "not the previous record's hash"},
		{"prev rewritten, hash recomputed", join(lines[0], lines[1], rehash(lines[2], func(r *auditRecord) { r.Prev = zeroHash }), lines[3], lines[4], lines[5]), 2, "not the previous record's hash"},
		{"record replaced by another chain's", join(lines[0], rehash(lines[1], func(r *auditRecord) { r.Prev = strings.Repeat("ab", 32) }), lines[2]), 1, "not the previous record's hash"},
		{"blank inserted", join(lines[0], bytes.Replace(lines[1], []byte(`"event":`), []byte(`"event": `), 1), lines[2]), 1, "not in canonical form"},
		{"member added", join(lines[0], bytes.Replace(lines[1], []byte(`{"index"`), []byte(`{"x":1,"index"`), 1)), 1, "not in canonical form"},
		{"empty line", join(lines[0], []byte("\n"), lines[1]), 1, "empty line"},
		{"hash upper-cased", join(lines[0], bytes.ToUpper(lines[1])), 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := VerifyAudit(bytes.NewReader(c.log))
			if c.index < 0 {
				if err != nil {
					t.Errorf("VerifyAudit = %v", err)
				}
				return
			}
			var ae *AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("VerifyAudit = %d, %v; want an *AuditError", n, err)
			}
			if ae.Index != c.index || ae.Line != c.index+1 || n != c.index || !strings.Contains(ae.Reason, c.reason) {
				t.Errorf("got %d records, %v; want record %d (line %d): …%s…", n, err, c.index, c.index+1, c.reason)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("record %d (line %d): ", c.index, c.index+1)) {
				t.Errorf("message %q", err)
			}
		})
	}
}

// TestAuditDetectsEveryFlippedByte flips each bit of each byte of a small
// log in turn: every flip must be caught, at the record holding the byte.
func TestAuditDetectsEveryFlippedByte(t *testing.T) {
	path := writeAuditLog(t, 4)
	log, _ := os.ReadFile(path)
	lineOf := func(i int) int { return bytes.Count(log[:i], []byte("\n")) }
	for i := range log {
		for bit := range 8 {
			bad := bytes.Clone(log)
			bad[i] ^= 1 << bit
			_, err := VerifyAudit(bytes.NewReader(bad))
			var ae *AuditError
			if !errors.As(err, &ae) {
				t.Fatalf("byte %d (%q) bit %d flipped: VerifyAudit = %v", i, log[i], bit, err)
			}
			if ae.Index != lineOf(i) {
				t.Fatalf("byte %d (%q) bit %d flipped, in record %d: reported %v", i, log[i], bit, lineOf(i), err)
			}
		}
	}
}

func TestAuditLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	big := strings.Repeat("0123456789abcdef ", 3<<20/17) // 3 MiB
	for i := range 3 {
		e := Event{Seq: uint64(i + 1), Type: ToolResult, SessionID: "s", Payload: ToolResultPayload{Content: big}}
		if err := a.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	if n, err := VerifyAuditFile(path); n != 3 || err != nil {
		t.Fatalf("VerifyAuditFile = %d, %v", n, err)
	}
	a = openTestAudit(t, path, false) // the tail of a long line is read back too
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
		if err := a.Write(t.Context(), evs[1]); err != nil {
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
	t.Run("file gone", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		a := openTestAudit(t, path, false)
		a.f.Close() // the descriptor dies under the sink
		if err := a.Write(t.Context(), evs[1]); err == nil || !strings.Contains(err.Error(), path) {
			t.Fatalf("Write to a closed file = %v", err)
		}
		if err := a.Write(t.Context(), evs[1]); err == nil {
			t.Fatal("a later Write must fail too")
		}
	})
	t.Run("short write", func(t *testing.T) {
		a := openTestAudit(t, filepath.Join(t.TempDir(), "audit.jsonl"), false)
		defer a.Close()
		a.w = failingWriter{nil} // a short write without an error
		if err := a.Write(t.Context(), evs[1]); err == nil {
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

func TestAuditMasksSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	p := UserMessagePayload{Text: "use " + tOpenAI + " and\npassword: hunter2", HookContext: "GITHUB_TOKEN=" + tGitHub}
	e := Event{Seq: 1, Type: UserMessage, SessionID: "s", Payload: p}
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
	if n, err := VerifyAuditFile(path); n != 1 || err != nil {
		t.Errorf("VerifyAuditFile = %d, %v", n, err)
	}
}

func TestAuditRefusesEphemeral(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	defer a.Close()
	for _, e := range []Event{
		{Type: AssistantDelta, Ephemeral: true, Payload: DeltaPayload{Text: "x"}},
		{Type: ReasoningDelta, Payload: DeltaPayload{Text: "x"}}, // the spec says ephemeral
		{Type: Error, Ephemeral: true, Payload: ErrorPayload{Message: "audit"}},
	} {
		if err := a.Write(t.Context(), e); err == nil || !strings.Contains(err.Error(), "ephemeral") {
			t.Errorf("Write(%s) = %v, want a refusal", e.Type, err)
		}
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("refused events were written: %s", b)
	}
	// A refusal is no failure: the sink goes on.
	if err := a.Write(t.Context(), auditEvents(1)[0]); err != nil {
		t.Errorf("Write after a refusal = %v", err)
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
			c.e.Seq = uint64(i + 1)
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

func TestAuditConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a := openTestAudit(t, path, false)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i, e := range auditEvents(50) {
				e.SessionID = fmt.Sprint("s", g)
				e.Seq = uint64(i + 1)
				if err := a.Write(t.Context(), e); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	a.Close()
	if n, err := VerifyAuditFile(path); n != 400 || err != nil {
		t.Fatalf("VerifyAuditFile = %d, %v; want 400", n, err)
	}
}

func BenchmarkAuditWrite(b *testing.B) {
	e := Event{Seq: 1, Type: ToolResult, SessionID: "s", Time: time.Now(),
		Payload: ToolResultPayload{CallID: "c1", Name: "read_file", Content: benchText(2 << 10), Risk: "read"}}
	for _, every := range []bool{false, true} {
		b.Run(fmt.Sprintf("SyncEvery=%v", every), func(b *testing.B) {
			a := openTestAudit(b, filepath.Join(b.TempDir(), "audit.jsonl"), every)
			defer a.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := a.Write(b.Context(), e); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
