package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/app"
	"github.com/moteur/moteur/effect"

	"github.com/moteur/moteur/atrest"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/event/audittest"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// auditKey is the audit subkey of the harness's at-rest key.
func (h *harness) auditKey(t *testing.T) []byte {
	t.Helper()
	k, err := app.AtRestKey(envMap(h.env), h.home(), false)
	if err != nil {
		t.Fatal(err)
	}
	return k.Subkey(atrest.PurposeAudit)
}

// auditRecords verifies session id's audit log with the harness's key and
// against its store, and returns how many records it holds.
func (h *harness) auditRecords(t *testing.T, id string) (int, error) {
	t.Helper()
	stored, err := app.StoredAudit(t.Context(), h.store(t), id)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := event.VerifyAuditFile(h.auditFile(id), event.AuditCheck{Key: h.auditKey(t), SessionID: id, Store: stored})
	return rep.Records, err
}

// appendAudited stores a session's events as another process of this
// version would have: each in the audit log, with the harness's key, then
// in the store with its head.
func (h *harness) appendAudited(t *testing.T, id string, payloads ...any) {
	t.Helper()
	st := h.store(t)
	appendEvents(t, st, id, payloads...)
	evs := h.load(t, id)
	// appendEvents wrote the store: put it back as it would be, written
	// after the log, with the heads.
	if err := st.Delete(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	k, err := app.AtRestKey(envMap(h.env), h.home(), true)
	if err != nil {
		t.Fatal(err)
	}
	a, err := event.OpenAudit(event.AuditConfig{Path: h.auditFile(id), Key: k.Subkey(atrest.PurposeAudit), SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sink := session.Sink{Store: st, Heads: a}
	for _, e := range evs {
		if err := a.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		if err := sink.Write(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// lastSeal is the mac of a log's last record.
func lastSeal(t *testing.T, log []byte) string {
	t.Helper()
	lines := bytes.Split(bytes.TrimSuffix(log, []byte("\n")), []byte("\n"))
	var rec struct {
		MAC string `json:"mac"`
	}
	if err := json.Unmarshal(lines[len(lines)-1], &rec); err != nil {
		t.Fatal(err)
	}
	return rec.MAC
}

// TestAuditVerifyAndRunRefuseATamperedLog: each way a log can be shortened,
// replaced or rewritten makes audit verify fail, naming the first bad
// record, and run refuse to continue the session; the clean session
// verifies and continues.
func TestAuditVerifyAndRunRefuseATamperedLog(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"), openaitest.Answer("B"), openaitest.Answer("C"))
	h := newHarness(t, srv.BaseURL())
	const id = "s-tamper"
	if res := h.run(t, "run", "--new-session", id, "first"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	path := h.auditFile(id)
	older := []byte(readFile(t, path)) // 4 records
	if res := h.run(t, "run", "--session", id, "second"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	clean := []byte(readFile(t, path)) // 8 records
	lines := bytes.SplitAfter(clean, []byte("\n"))[:8]
	other := bytes.Repeat([]byte{9}, 32)
	forged := func(k []byte) []byte {
		ev := fmt.Appendf(nil, `{"seq":9,"type":"UserMessage","session_id":"%s","time":"2026-01-01T00:00:00Z","payload":{"text":"forged"}}`, id)
		b, _ := audittest.AppendRecord(bytes.Clone(clean), 8, lastSeal(t, clean), ev, k)
		return b
	}
	stored := jsonLines(t, h.load(t, id))
	requests := len(srv.Requests())

	for _, c := range []struct {
		name string
		log  []byte // nil: the file removed
		// verify is what audit verify says of the log, after "broken PATH: "
		// (or the whole line, for missing).
		verify string
	}{
		{"last records removed", bytes.Join(lines[:6], nil),
			"record 6 (line 7): missing: the log ends at record 5, but the store holds events up to seq 8 (2 records removed"},
		{"rolled back to an older copy", older,
			"record 4 (line 5): missing: the log ends at record 3, but the store holds events up to seq 8"},
		{"emptied", []byte{},
			"record 0 (line 1): missing: the log is empty, but the store holds events up to seq 8"},
		{"deleted", nil,
			"missing " + path + ": session s-tamper has 8 stored events but no audit log (deleted or moved)"},
		{"a forged record appended, hashed the old way", forged(nil),
			"record 8 (line 9): an unkeyed record after keyed ones: written without the key"},
		{"a forged record appended with another key", forged(other),
			"record 8 (line 9): mac mismatch"},
		{"the whole chain rewritten with another key", audittest.Rehash(t, clean, other),
			"record 0 (line 1): mac mismatch"},
		{"the whole chain rehashed the old way", audittest.Rehash(t, clean, nil),
			"record 0 (line 1): unkeyed, but the store holds a head for seq 1: the log was rewritten without the key"},
		{"an event edited mid-file", bytes.Replace(clean, []byte("second"), []byte("secund"), 1),
			"record 5 (line 6): mac mismatch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.log == nil {
				must(t, os.Remove(path))
			} else {
				must(t, os.WriteFile(path, c.log, 0o600))
			}
			t.Cleanup(func() { must(t, os.WriteFile(path, clean, 0o600)) })
			res := h.run(t, "audit", "verify", id)
			want := "broken " + path + ": " + c.verify
			if c.log == nil {
				want = c.verify
			}
			if res.code != 1 || !strings.HasPrefix(res.stdout, want) || res.stderr != "moteur: 1 of 1 audit logs failed verification\n" {
				t.Errorf("audit verify: exit %d, stdout %q, stderr %q; want 1 and %q", res.code, res.stdout, res.stderr, want)
			}
			// The session is not continued: no request, nothing stored,
			// the log as it was.
			before, _ := os.ReadFile(path)
			res = h.run(t, "run", "--session", id, "third")
			if res.code != 1 || !strings.Contains(res.stderr, "session "+id) || !strings.Contains(res.stderr, path) ||
				!strings.Contains(res.stderr, "not continued") || strings.Count(res.stderr, "\n") != 1 {
				t.Errorf("run: exit %d, stderr %q; want 1 and one line naming the session, the log and the refusal", res.code, res.stderr)
			}
			if n := len(srv.Requests()); n != requests {
				t.Errorf("%d requests, want %d: the refused run reached the model", n, requests)
			}
			if got := jsonLines(t, h.load(t, id)); got != stored {
				t.Errorf("the store changed:\n%s", got)
			}
			after, err := os.ReadFile(path)
			if c.log == nil {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the refused run created a log: %v", err)
				}
			} else if !bytes.Equal(after, before) {
				t.Errorf("the refused run changed the log")
			}
		})
	}

	t.Run("a head in the store that is not the record's mac", func(t *testing.T) {
		db, err := sql.Open("sqlite", session.DefaultPath(h.home()))
		must(t, err)
		defer db.Close()
		var head []byte
		must(t, db.QueryRow(`SELECT audit_mac FROM events WHERE session_id = ? AND seq = 3`, id).Scan(&head))
		bad := bytes.Repeat([]byte{1}, 32)
		_, err = db.Exec(`UPDATE events SET audit_mac = ? WHERE session_id = ? AND seq = 3`, bad, id)
		must(t, err)
		defer func() {
			_, err := db.Exec(`UPDATE events SET audit_mac = ? WHERE session_id = ? AND seq = 3`, head, id)
			must(t, err)
		}()
		res := h.run(t, "audit", "verify", "--json", id)
		var r auditResult
		if err := json.Unmarshal([]byte(res.stdout), &r); err != nil {
			t.Fatalf("--json output %q: %v", res.stdout, err)
		}
		if res.code != 1 || r.Status != "broken" || r.Bad == nil || r.Bad.Index != 2 || r.Bad.Line != 3 ||
			!strings.Contains(r.Bad.Reason, "the store holds for seq 3") || r.Path != path || r.SessionID != id || !r.Stored {
			t.Errorf("audit verify --json: exit %d, %+v (bad %+v)", res.code, r, r.Bad)
		}
		// A continuation checks the count and the last head (every MAC
		// covers the one before): the store's last head changed is
		// refused there too.
		var last uint64
		var lastHead []byte
		must(t, db.QueryRow(`SELECT seq, audit_mac FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1`, id).Scan(&last, &lastHead))
		_, err = db.Exec(`UPDATE events SET audit_mac = ? WHERE session_id = ? AND seq = ?`, bad, id, last)
		must(t, err)
		defer func() {
			_, err := db.Exec(`UPDATE events SET audit_mac = ? WHERE session_id = ? AND seq = ?`, lastHead, id, last)
			must(t, err)
		}()
		want := fmt.Sprintf("record %d (line %d)", last-1, last)
		if res := h.run(t, "run", "--session", id, "third"); res.code != 1 || !strings.Contains(res.stderr, want) {
			t.Errorf("run: exit %d, stderr %q, want %q", res.code, res.stderr, want)
		}
	})

	t.Run("the at-rest key missing", func(t *testing.T) {
		kp := filepath.Join(h.env["XDG_CONFIG_HOME"], "moteur", atrest.FileName)
		must(t, os.Rename(kp, kp+".away"))
		defer func() { must(t, os.Rename(kp+".away", kp)) }()
		res := h.run(t, "audit", "verify", id)
		if res.code != 1 || res.stdout != "unverified 8 records  "+path+": MACs not checked without the at-rest key\n" ||
			!strings.Contains(res.stderr, kp) {
			t.Errorf("audit verify: exit %d, stdout %q, stderr %q; want 1, the log unverified, the key file named", res.code, res.stdout, res.stderr)
		}
		if res := h.run(t, "run", "--session", id, "third"); res.code != 1 || !strings.Contains(res.stderr, kp) {
			t.Errorf("run without the key: exit %d, stderr %q", res.code, res.stderr)
		}
	})

	// Untouched, the session verifies and continues.
	res := h.run(t, "audit", "verify", id)
	if res.code != 0 || res.stdout != "ok 8 records  "+path+"\n" || res.stderr != "" {
		t.Fatalf("clean log: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if res := h.run(t, "run", "--session", id, "third"); res.code != 0 || res.stdout != "C\n" {
		t.Fatalf("clean session: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if n, err := h.auditRecords(t, id); err != nil || n != 12 {
		t.Errorf("after the third turn: %d records, %v", n, err)
	}
}

// TestRunStoresTheRecordACrashKeptFromTheStore: the audit log is written
// first; a crash before the store leaves one record the store lacks. audit
// verify reports it, and the next run stores it before going on.
func TestRunStoresTheRecordACrashKeptFromTheStore(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"), openaitest.Answer("B"))
	h := newHarness(t, srv.BaseURL())
	const id = "s-ahead"
	if res := h.run(t, "run", "--new-session", id, "first"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	// What the audit sink of the crashed process wrote, and the store never
	// got: the record of seq 5.
	stored, err := app.StoredAudit(t.Context(), h.store(t), id)
	must(t, err)
	a, err := event.OpenAudit(event.AuditConfig{Path: h.auditFile(id), Key: h.auditKey(t), SessionID: id, Store: stored})
	must(t, err)
	lost := event.Event{Seq: 5, Type: event.UserMessage, SessionID: id, Time: time.Now().UTC(), Payload: event.UserMessagePayload{Text: "lost in the crash"}}
	must(t, a.Write(t.Context(), lost))
	must(t, a.Close())

	res := h.run(t, "audit", "verify")
	if res.code != 1 || !strings.HasPrefix(res.stdout, "broken "+h.auditFile(id)+": record 4 (line 5): beyond the store, which ends at seq 4") {
		t.Errorf("audit verify: exit %d, stdout %q", res.code, res.stdout)
	}
	res = h.run(t, "run", "--session", id, "second")
	if res.code != 0 || !strings.Contains(res.stderr, "warning: session s-ahead: stored event seq 5 (UserMessage) from the audit log") {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	evs := h.load(t, id)
	checkSeqs(t, evs)
	if p, ok := evs[4].Payload.(event.UserMessagePayload); !ok || p.Text != "lost in the crash" {
		t.Errorf("seq 5 = %+v, want the record the crash kept from the store", evs[4])
	}
	if res := h.run(t, "audit", "verify"); res.code != 0 || res.stdout != fmt.Sprintf("ok %d records  %s\n", len(evs), h.auditFile(id)) {
		t.Errorf("audit verify after: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

// callTool is a test tool of risk read that counts its calls, does what
// do does (when set) and answers content. It is not concurrent, so calls
// of one round run one after the other.
type callTool struct {
	name, description, content string
	do                         func() error
	calls                      *atomic.Int32
}

// removeTool (test_remove) removes path; markTool (test_mark) only counts.
func removeTool(path string, calls *atomic.Int32) callTool {
	return callTool{name: "test_remove", description: "Test tool: removes a path.", content: "removed",
		do: func() error { return os.RemoveAll(path) }, calls: calls}
}

func markTool(calls *atomic.Int32) callTool {
	return callTool{name: "test_mark", description: "Test tool: counts its calls.", content: "marked", calls: calls}
}

func (c callTool) Name() string             { return c.name }
func (c callTool) Description() string      { return c.description }
func (callTool) Schema() json.RawMessage    { return json.RawMessage(`{"type":"object"}`) }
func (callTool) Risk() effect.Risk          { return effect.RiskRead }
func (callTool) Concurrent() bool           { return false }
func (callTool) Timeout() (d time.Duration) { return time.Minute }
func (c callTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	c.calls.Add(1)
	if c.do != nil {
		if err := c.do(); err != nil {
			return tools.Result{}, err
		}
	}
	return tools.Result{Content: c.content}, nil
}

// TestTurnStopsWhenTheAuditLogIsRemovedMidTurn: a tool removes the audit log
// (its file, its directory, or the whole data directory); the record of its
// result cannot be written, so the turn stops with the audit failure and
// the next tool call — in the same round, or the next — never runs.
func TestTurnStopsWhenTheAuditLogIsRemovedMidTurn(t *testing.T) {
	for _, what := range []string{"file", "directory", "MOTEUR_HOME"} {
		for _, sameRound := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/same round %v", what, sameRound), func(t *testing.T) {
				var srv *openaitest.Server
				if sameRound {
					srv = openaitest.NewServer(t, openaitest.Calls("c1", "test_remove", `{}`, "c2", "test_mark", `{}`), openaitest.Answer("never"))
				} else {
					srv = openaitest.NewServer(t, openaitest.Calls("c1", "test_remove", `{}`), openaitest.Calls("c2", "test_mark", `{}`), openaitest.Answer("never"))
				}
				h := newHarness(t, srv.BaseURL())
				const id = "s-gone"
				target := map[string]string{"file": h.auditFile(id), "directory": filepath.Dir(h.auditFile(id)), "MOTEUR_HOME": h.home()}[what]
				var removed, marked atomic.Int32
				h.tools = append(h.tools,
					func() tools.Tool { return removeTool(target, &removed) },
					func() tools.Tool { return markTool(&marked) })
				res := h.run(t, "run", "--new-session", id, "go")
				if res.code != 1 || !strings.Contains(res.stderr, "audit") || !strings.Contains(res.stderr, event.ErrAuditFileGone.Error()) {
					t.Errorf("exit %d, stderr %q; want 1 and the audit failure", res.code, res.stderr)
				}
				if removed.Load() != 1 {
					t.Fatalf("test_remove ran %d times, want once: the attempt must be made", removed.Load())
				}
				if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s still there: %v", target, err)
				}
				if n := marked.Load(); n != 0 {
					t.Errorf("test_mark ran %d times after the audit log was gone", n)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests, want 1: the turn must stop at the failure", n)
				}
			})
		}
	}
}

// TestAuditOfAnEarlierVersionsDataDirectory: a data directory Moteur v0.x
// left (testdata/home-v0: its database at schema 1, its unkeyed audit logs)
// verifies, saying what could not be checked, and its sessions continue,
// authenticated from then on.
func TestAuditOfAnEarlierVersionsDataDirectory(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("suite"))
	h := newHarness(t, srv.BaseURL())
	must(t, os.CopyFS(h.home(), os.DirFS(filepath.Join("testdata", "home-v0"))))
	v01, v02 := h.auditFile("20261130T090000-v01"), h.auditFile("compat-v02")
	const unkeyed = ": unkeyed log of an earlier version: integrity checked, not authenticity (no MAC, no heads in the store)"
	res := h.run(t, "audit", "verify")
	if want := "unkeyed 6 records  " + v01 + unkeyed + "\nunkeyed 8 records  " + v02 + unkeyed + "\n"; res.code != 0 || res.stdout != want || res.stderr != "" {
		t.Fatalf("audit verify: exit %d, stdout %q, stderr %q; want %q", res.code, res.stdout, res.stderr, want)
	}
	// Its unkeyed chain is still checked.
	old, _ := os.ReadFile(v02)
	must(t, os.WriteFile(v02, bytes.Replace(old, []byte("Relance"), []byte("Relanc3"), 1), 0o600))
	if res := h.run(t, "audit", "verify", "compat-v02"); res.code != 1 || !strings.HasPrefix(res.stdout, "broken "+v02+": record 6 (line 7): hash mismatch") {
		t.Errorf("an edited old log: exit %d, stdout %q", res.code, res.stdout)
	}
	must(t, os.WriteFile(v02, old, 0o600))

	res = h.run(t, "run", "--session", "compat-v02", "continue")
	if res.code != 0 || !strings.HasSuffix(res.stdout, "\nsuite\n") {
		t.Fatalf("continue: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	evs := h.load(t, "compat-v02")
	res = h.run(t, "audit", "verify", "compat-v02")
	want := fmt.Sprintf("ok %d records  %s: records 0 to 7 are unkeyed, of an earlier version: authenticated as they were when record 8 chained onto them\n", len(evs), v02)
	if res.code != 0 || res.stdout != want {
		t.Errorf("continued: exit %d, stdout %q, stderr %q; want %q", res.code, res.stdout, res.stderr, want)
	}
	// From the switch on, the unkeyed prefix is pinned: recomputing its
	// hashes after an edit breaks the first keyed record.
	cur, _ := os.ReadFile(v02)
	lines := bytes.SplitAfter(cur, []byte("\n"))
	prefix := audittest.Rehash(t, bytes.Replace(bytes.Join(lines[:8], nil), []byte("Relance"), []byte("Relanc3"), 1), nil)
	must(t, os.WriteFile(v02, append(prefix, bytes.Join(lines[8:], nil)...), 0o600))
	if res := h.run(t, "audit", "verify", "compat-v02"); res.code != 1 || !strings.HasPrefix(res.stdout, "broken "+v02+": record 8 (line 9): prev") {
		t.Errorf("an old prefix rewritten after the switch: exit %d, stdout %q", res.code, res.stdout)
	}
}

// TestAuditVerifyOfAForkChecksItsLinkToTheSource: a fork's log starts at its
// fork seq, chained onto the head it copied from its source.
func TestAuditVerifyOfAForkChecksItsLinkToTheSource(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"), openaitest.Answer("B"), openaitest.Answer("from the fork"))
	h := newHarness(t, srv.BaseURL())
	h.forkAfterTwoTurns(t)
	src, fork := h.auditFile("s-src"), h.auditFile("s-fork")
	res := h.run(t, "audit", "verify", "s-fork")
	if want := "ok 0 records  " + fork + ": no log yet: a fork of s-src with no event of its own; its first 4 events are in " + src + "\n"; res.code != 0 || res.stdout != want {
		t.Errorf("a fork without its own events: exit %d, stdout %q, stderr %q; want %q", res.code, res.stdout, res.stderr, want)
	}
	if res := h.run(t, "run", "--session", "s-fork", "three"); res.code != 0 {
		t.Fatalf("continue the fork: exit %d: %s", res.code, res.stderr)
	}
	res = h.run(t, "audit", "verify")
	want := "ok 4 records  " + fork + ": its first 4 events are in " + src + "\nok 8 records  " + src + "\n"
	if res.code != 0 || res.stdout != want {
		t.Errorf("audit verify: exit %d, stdout %q, stderr %q; want %q", res.code, res.stdout, res.stderr, want)
	}
	if first := strings.SplitN(readFile(t, fork), "\n", 2)[0]; !strings.HasPrefix(first, `{"index":4,"prev":"`+lastSeal(t, []byte(strings.Join(strings.SplitAfter(readFile(t, src), "\n")[:4], "")))+`",`) {
		t.Errorf("the fork's first record %s does not chain onto the source's record 3", first)
	}
	// The source's log replaced by one of another key: the fork's link
	// breaks too.
	clean, _ := os.ReadFile(src)
	must(t, os.WriteFile(src, audittest.Rehash(t, clean, bytes.Repeat([]byte{3}, 32)), 0o600))
	res = h.run(t, "audit", "verify", "s-fork")
	if res.code != 1 || !strings.HasPrefix(res.stdout, "broken "+fork+": record 3: the head the fork copied for seq 4 is not the mac of that record in "+src) {
		t.Errorf("a changed source: exit %d, stdout %q", res.code, res.stdout)
	}
	must(t, os.WriteFile(src, clean, 0o600))
	// The source removed from the store, its log kept: both still verify.
	if res := h.run(t, "sessions", "rm", "--yes", "s-src"); res.code != 0 {
		t.Fatalf("rm: exit %d: %s", res.code, res.stderr)
	}
	res = h.run(t, "audit", "verify")
	want = "ok 4 records  " + fork + ": its first 4 events are in " + src + "\nok 8 records  " + src +
		": session s-src is not in the store (removed?): its record count and heads not compared\n"
	if res.code != 0 || res.stdout != want {
		t.Errorf("after rm: exit %d, stdout %q, stderr %q; want %q", res.code, res.stdout, res.stderr, want)
	}
	// Its id is not taken again over the kept log.
	if res := h.run(t, "run", "--new-session", "s-src", "again"); res.code != 1 || !strings.Contains(res.stderr, "use another session id") {
		t.Errorf("reusing a removed session's id: exit %d, stderr %q", res.code, res.stderr)
	}
}

// must fails the test on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAuditRepairAfterAPowerLossTearsARecord: the record being written
// when the power went is torn, and its event never reached the store. run
// refuses and says how to repair; repair cuts the torn bytes (kept aside);
// the session continues.
func TestAuditRepairAfterAPowerLossTearsARecord(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("A"), openaitest.Answer("B"))
	h := newHarness(t, srv.BaseURL())
	const id = "s-power"
	if res := h.run(t, "run", "--new-session", id, "first"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	path := h.auditFile(id)
	clean := []byte(readFile(t, path))
	ev := fmt.Appendf(nil, `{"seq":5,"type":"UserMessage","session_id":"%s","time":"2026-01-01T00:00:00Z","payload":{"text":"cut"}}`, id)
	rec, _ := audittest.AppendRecord(nil, 4, lastSeal(t, clean), ev, h.auditKey(t))
	must(t, os.WriteFile(path, append(bytes.Clone(clean), rec[:len(rec)/2]...), 0o600))
	res := h.run(t, "run", "--session", id, "second")
	if res.code != 1 || !strings.Contains(res.stderr, "record 4 (line 5): truncated record") || !strings.Contains(res.stderr, "moteur audit repair "+path) {
		t.Fatalf("run: exit %d, stderr %q", res.code, res.stderr)
	}
	res = h.run(t, "audit", "repair", path)
	if res.code != 0 || !strings.Contains(res.stdout, ".torn-") || strings.Contains(res.stdout, "again from the store") ||
		!strings.HasSuffix(res.stdout, "ok 4 records  "+path+"\n") {
		t.Fatalf("repair: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	if got := readFile(t, path); got != string(clean) {
		t.Errorf("repaired log:\n%s\nwant the log before the torn record", got)
	}
	if res := h.run(t, "run", "--session", id, "second"); res.code != 0 {
		t.Fatalf("after the repair: exit %d, stderr %q", res.code, res.stderr)
	}
	if n, err := h.auditRecords(t, id); err != nil || n != 8 {
		t.Errorf("%d records, %v", n, err)
	}
}

// TestRunSendsEachAuditHeadToSyslog: with MOTEUR_AUDIT_SYSLOG, each record's
// head goes to syslog too (a unix datagram socket stands for /dev/log); a
// syslog that cannot be reached refuses the session.
func TestRunSendsEachAuditHeadToSyslog(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Skipf("no unix datagram sockets here: %v", err)
	}
	defer conn.Close()
	srv := openaitest.NewServer(t, openaitest.Answer("A"))
	h := newHarness(t, srv.BaseURL())
	h.env["MOTEUR_AUDIT_SYSLOG"] = "unixgram:" + sock
	const id = "s-syslog"
	if res := h.run(t, "run", "--new-session", id, "first"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	log := []byte(readFile(t, h.auditFile(id)))
	n := bytes.Count(log, []byte("\n"))
	// Every datagram was sent before run returned; the deadline only
	// bounds a failing test.
	must(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	buf := make([]byte, 4096)
	var last string
	for i := range n {
		k, err := conn.Read(buf)
		if err != nil {
			t.Fatalf("datagram %d of %d: %v", i, n, err)
		}
		last = strings.TrimSuffix(string(buf[:k]), "\n")
		if want := fmt.Sprintf(`audit head session="%s" index=%d mac=`, id, i); !strings.Contains(last, want) {
			t.Errorf("datagram %d: %q, want %q", i, last, want)
		}
	}
	if !strings.HasSuffix(last, "mac="+lastSeal(t, log)) {
		t.Errorf("last head sent %q, want the log's last mac %s", last, lastSeal(t, log))
	}
	// Asked for and unreachable: refused before anything is written.
	conn.Close()
	res := h.run(t, "run", "--session", id, "second")
	if res.code != 1 || !strings.Contains(res.stderr, "audit heads to syslog") {
		t.Errorf("unreachable syslog: exit %d, stderr %q", res.code, res.stderr)
	}
	if got := readFile(t, h.auditFile(id)); got != string(log) {
		t.Error("the refused run wrote to the audit log")
	}
	h.env["MOTEUR_AUDIT_SYSLOG"] = "nonsense"
	if res := h.run(t, "run", "--session", id, "second"); res.code != 1 || !strings.Contains(res.stderr, "MOTEUR_AUDIT_SYSLOG") {
		t.Errorf("a bad MOTEUR_AUDIT_SYSLOG: exit %d, stderr %q", res.code, res.stderr)
	}
}
