package main

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/openai/openaitest"
	"github.com/moteur/moteur/session"
)

func TestRunTwiceWithOneSessionContinuesIt(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("first answer"), openaitest.Answer("second answer"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-cont", "first question"); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	res := h.run(t, "run", "--session", "s-cont", "second question")
	if res.code != 0 || res.stdout != "second answer\n" {
		t.Fatalf("second run: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var got []string
	for _, m := range reqs[1].Messages[1:] { // after the system prompt
		got = append(got, string(m.Role)+": "+m.Content)
	}
	want := []string{"user: first question", "assistant: first answer", "user: second question"}
	if !slices.Equal(got, want) {
		t.Errorf("second request %q, want the first turn before the new message: %q", got, want)
	}

	evs := h.load(t, "s-cont")
	checkSeqs(t, evs)
	// Each process records what it runs the session with.
	wantTypes := []event.Type{event.SessionStarted, event.UserMessage, event.AssistantMessage, event.TurnCompleted,
		event.SessionStarted, event.UserMessage, event.AssistantMessage, event.TurnCompleted}
	if got := types(evs); !slices.Equal(got, wantTypes) {
		t.Errorf("stored %v, want %v", got, wantTypes)
	}
	if got := readFile(t, h.transcriptFile("s-cont")); got != jsonLines(t, evs) {
		t.Errorf("transcript is not the stored events:\n%s", got)
	}
	res = h.run(t, "audit", "verify")
	if res.code != 0 || res.stdout != "ok 8 records  "+h.auditFile("s-cont")+"\n" {
		t.Errorf("audit verify: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
}

// appendEvents stores a session's events as another process would have.
func appendEvents(t *testing.T, st session.Store, id string, payloads ...any) {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var evs []event.Event
	for i, p := range payloads {
		e := event.Event{Seq: uint64(i + 1), SessionID: id, Time: at.Add(time.Duration(i) * time.Second), Payload: p}
		switch p.(type) {
		case event.SessionStartedPayload:
			e.Type = event.SessionStarted
		case event.UserMessagePayload:
			e.Type = event.UserMessage
		case event.AssistantMessagePayload:
			e.Type = event.AssistantMessage
		case event.ToolResultPayload:
			e.Type = event.ToolResult
		case event.TurnCompletedPayload:
			e.Type = event.TurnCompleted
		case event.ContextCompactedPayload:
			e.Type = event.ContextCompacted
		case json.RawMessage:
			e.Type = "FutureEvent"
		default:
			t.Fatalf("no type for %T", p)
		}
		evs = append(evs, e)
	}
	if err := st.Append(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
}

func TestRunContinuesACrashedSessionWithAnUnknownEventType(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("recovered"))
	h := newHarness(t, srv.BaseURL())
	// A session that stopped in a tool call, with an event of a newer
	// version in its log.
	h.appendAudited(t, "s-crashed",
		event.SessionStartedPayload{Provider: "p", Model: "m", ProjectRoot: h.dir, Tools: []string{"thinking"}},
		event.UserMessagePayload{Text: "plan it"},
		json.RawMessage(`{"from":"the future"}`),
		event.AssistantMessagePayload{Round: 1, ToolCalls: []llm.ToolCall{{ID: "call_x", Name: "thinking", Arguments: thinkingArgs}}},
	)
	res := h.run(t, "run", "--session", "s-crashed", "go on")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n, err := h.auditRecords(t, "s-crashed"); err != nil || n != 9 {
		t.Errorf("the continued audit log: %d records, %v; want 9", n, err)
	}
	srv.CheckPairing(t)
	msgs := srv.Requests()[0].Messages
	i := slices.IndexFunc(msgs, func(m llm.Message) bool { return m.Role == llm.RoleTool && m.ToolCallID == "call_x" })
	if i < 0 || !strings.Contains(msgs[i].Content, "before the call finished") {
		t.Fatalf("request lacks the synthetic answer to the dangling call: %+v", msgs)
	}
	evs := h.load(t, "s-crashed")
	checkSeqs(t, evs)
	if evs[2].Type != "FutureEvent" || string(evs[2].Payload.(json.RawMessage)) != `{"from":"the future"}` {
		t.Errorf("unknown event changed: %+v", evs[2])
	}
	// 4 stored, then SessionStarted, the recorded synthetic answer, the
	// user message, the answer and the turn's end.
	if last := evs[len(evs)-1]; last.Type != event.TurnCompleted || last.Seq != 9 {
		t.Errorf("last stored event %s seq %d, want TurnCompleted seq 9", last.Type, last.Seq)
	}

	res = h.run(t, "sessions", "show", "s-crashed")
	for _, want := range []string{
		"› plan it", "→ thinking {", "✗ thinking [synthetic: moteur answered, the call never finished]",
		"· FutureEvent (seq 3): an event type this version does not know", "› go on", "recovered",
		"· turn ended: stop",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, res.stdout)
		}
	}
}

func TestRunRefusesALogThatCannotDescribeASession(t *testing.T) {
	srv := openaitest.NewServer(t)
	h := newHarness(t, srv.BaseURL())
	h.appendAudited(t, "s-bad",
		event.SessionStartedPayload{Provider: "p", Model: "m"},
		event.UserMessagePayload{Text: "hi"},
		event.ContextCompactedPayload{Summary: "s", Replaced: 99},
	)
	before := h.load(t, "s-bad")
	logBefore := readFile(t, h.auditFile("s-bad"))
	res := h.run(t, "run", "--session", "s-bad", "again")
	if res.code != 1 || !strings.HasPrefix(res.stderr, "session: s-bad\n") || !strings.Contains(res.stderr, "invalid session log") ||
		strings.Count(res.stderr, "\n") != 2 {
		t.Errorf("exit %d, stderr %q; want 1, the session line and one line naming the session and the problem", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
	if after := h.load(t, "s-bad"); jsonLines(t, after) != jsonLines(t, before) {
		t.Errorf("the stored log changed:\n%s", jsonLines(t, after))
	}
	if got := readFile(t, h.auditFile("s-bad")); got != logBefore {
		t.Errorf("the audit log changed:\n%s", got)
	}
}

func TestRunRefusesASessionInUseByAnotherProcess(t *testing.T) {
	srv := openaitest.NewServer(t)
	h := newHarness(t, srv.BaseURL())
	// Another live process of this host (our parent) holds the lease.
	other := openTestStore(t, session.SQLiteConfig{Path: session.DefaultPath(h.home()), PID: os.Getppid()})
	lease, err := other.Acquire(t.Context(), "s-busy")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--new-session", "s-busy", "hi"},
		{"chat", "--new-session", "s-busy"},
	} {
		res := h.run(t, args...)
		if res.code != 1 || !strings.Contains(res.stderr, "session s-busy is in use by another process") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and 'in use by another process'", args, res.code, res.stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
	if _, err := os.Stat(h.auditFile("s-busy")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused process opened the session's audit log: %v", err)
	}
	// Removing it is refused too, until the holder lets go.
	appendEvents(t, other, "s-busy", event.SessionStartedPayload{Provider: "p", Model: "m"})
	if res := h.run(t, "sessions", "rm", "--yes", "s-busy"); res.code != 1 || !strings.Contains(res.stderr, "in use by another process") {
		t.Errorf("rm: exit %d, stderr %q", res.code, res.stderr)
	}
	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "sessions", "rm", "--yes", "s-busy"); res.code != 0 {
		t.Errorf("rm after release: exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestACorruptDatabaseIsRefusedAndLeftAlone(t *testing.T) {
	srv := openaitest.NewServer(t)
	h := newHarness(t, srv.BaseURL())
	db := session.DefaultPath(h.home())
	garbage := strings.Repeat("not a database\n", 100)
	if err := os.WriteFile(db, []byte(garbage), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--session", "s-1", "hi"},
		{"sessions", "list"},
		{"sessions", "show", "s-1"},
	} {
		res := h.run(t, args...)
		if res.code != 1 || !strings.Contains(res.stderr, db) || !strings.Contains(res.stderr, "corrupt") ||
			strings.Count(res.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line naming %s as corrupt", args, res.code, res.stderr, db)
		}
	}
	if got := readFile(t, db); got != garbage {
		t.Error("the corrupt database was modified")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests", n)
	}
}

func TestRunRepairsATranscriptLeftBehindByACrash(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.Answer("one"), openaitest.Answer("two"))
	h := newHarness(t, srv.BaseURL())
	if res := h.run(t, "run", "--new-session", "s-tr", "hi"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	// The process died while writing the last line.
	path := h.transcriptFile("s-tr")
	full := readFile(t, path)
	if err := os.WriteFile(path, []byte(full[:len(full)-20]), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := h.run(t, "run", "--session", "s-tr", "again"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got, want := readFile(t, path), jsonLines(t, h.load(t, "s-tr")); got != want {
		t.Errorf("transcript:\n%s\nwant the stored events:\n%s", got, want)
	}
}
