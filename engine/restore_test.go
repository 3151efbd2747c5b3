package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moteur/moteur/compaction"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// logOf builds a session log from payloads, numbering seqs from 1.
func logOf(payloads ...any) []event.Event {
	var out []event.Event
	for i, p := range payloads {
		out = append(out, ev(uint64(i+1), p))
	}
	return out
}

var payloadTypes = map[reflect.Type]event.Type{}

func init() {
	for _, t := range event.Types() {
		ev, _ := event.Decode([]byte(`{"type":"` + string(t) + `","payload":{}}`))
		payloadTypes[reflect.TypeOf(ev.Payload)] = t
	}
}

func ev(seq uint64, p any) event.Event {
	return event.Event{Seq: seq, Type: payloadTypes[reflect.TypeOf(p)], SessionID: "s1", Time: epoch, Payload: p}
}

func child(e event.Event) event.Event { e.ParentCallID = "call_parent"; return e }

func user(text string) event.UserMessagePayload { return event.UserMessagePayload{Text: text} }
func answer(text string) event.AssistantMessagePayload {
	return event.AssistantMessagePayload{Text: text, Finish: llm.FinishStop}
}
func callsTo(ids ...string) event.AssistantMessagePayload {
	p := event.AssistantMessagePayload{Finish: llm.FinishToolCalls}
	for _, id := range ids {
		p.ToolCalls = append(p.ToolCalls, llm.ToolCall{ID: id, Name: "echo", Arguments: `{}`})
	}
	return p
}
func result(id, content string) event.ToolResultPayload {
	return event.ToolResultPayload{CallID: id, Name: "echo", Content: content}
}

// restored restores log into a fresh engine and returns the messages of the
// next request (system prompt and the new user message excluded).
func restored(t *testing.T, log []event.Event) ([]llm.Message, *harness) {
	t.Helper()
	h := newHarness(t, []scripted.Step{{Text: "suite"}}, []tools.Tool{&fakeTool{name: "echo"}}, nil)
	if err := h.e.Restore("s1", log); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if err := h.submit("et ensuite ?"); err != nil {
		t.Fatal(err)
	}
	msgs := h.p.Requests()[0].Messages
	return msgs[1 : len(msgs)-1], h
}

func contents(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Role)+":"+m.Content)
	}
	return out
}

func TestRestoreRebuildsHistoryFromMessagesAndResults(t *testing.T) {
	msgs, _ := restored(t, logOf(
		event.SessionStartedPayload{Provider: "p"}, user("question"), callsTo("c1", "c2"),
		result("c2", "deux"), result("c1", "un"), answer("réponse"), event.TurnCompletedPayload{Reason: "stop"},
	))
	// Results join the history in call order whatever order they ended
	// in, live and restored alike.
	want := []string{"user:question", "assistant:", "tool:un", "tool:deux", "assistant:réponse"}
	if got := contents(msgs); !reflect.DeepEqual(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
	if len(msgs[1].ToolCalls) != 2 || msgs[2].ToolCallID != "c1" {
		t.Errorf("tool calls not restored: %+v", msgs[1:3])
	}
}

func TestRestoreAnswersDanglingCalls(t *testing.T) {
	// c1 answered, c2 left dangling before the next user message; c3
	// dangling at the end of the log.
	msgs, _ := restored(t, logOf(
		user("q1"), callsTo("c1", "c2"), result("c1", "un"),
		user("q2"), callsTo("c3"),
	))
	got := contents(msgs)
	want := []string{"user:q1", "assistant:", "tool:un", "tool:" + danglingCallAnswer, "user:q2", "assistant:", "tool:" + danglingCallAnswer}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history =\n%q\nwant\n%q", got, want)
	}
	if msgs[3].ToolCallID != "c2" || msgs[6].ToolCallID != "c3" {
		t.Errorf("synthetic answers for %q and %q, want c2 and c3", msgs[3].ToolCallID, msgs[6].ToolCallID)
	}
}

func TestRestoreDanglingCallBeforeNextAssistantMessage(t *testing.T) {
	msgs, _ := restored(t, logOf(user("q"), callsTo("c1"), answer("a")))
	if got := contents(msgs); got[2] != "tool:"+danglingCallAnswer || got[3] != "assistant:a" {
		t.Errorf("history = %q", got)
	}
}

func TestRestoreResumesSequenceAndRecordsTheNewProcess(t *testing.T) {
	log := logOf(user("q"), answer("a"))
	log[1].Seq = 41 // seqs resume from the largest read, gaps included
	_, h := restored(t, log)
	evs := persisted(h.drain())
	if evs[0].Type != event.SessionStarted || evs[0].Seq != 42 || evs[1].Type != event.UserMessage || evs[1].Seq != 43 {
		t.Errorf("first new events: %s %d, %s %d; want SessionStarted 42 (this process's setup), UserMessage 43",
			evs[0].Type, evs[0].Seq, evs[1].Type, evs[1].Seq)
	}
}

func TestRestoreRecordsSyntheticAnswersOfTrailingDanglingCalls(t *testing.T) {
	log := logOf(user("q"), callsTo("c1", "c2"), result("c1", "un"))
	msgs, h := restored(t, log)
	evs := persisted(h.drain())
	got := types(evs)
	want := []event.Type{event.SessionStarted, event.ToolResult, event.UserMessage, event.AssistantMessage, event.TurnCompleted}
	if !equalTypes(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	r := evs[1].Payload.(event.ToolResultPayload)
	if r.CallID != "c2" || !r.Synthetic || !r.IsError || r.Content != danglingCallAnswer || r.Name != "echo" {
		t.Errorf("synthetic result = %+v", r)
	}
	// Restoring the longer log finds nothing dangling any more and sends
	// the model the same history.
	again := append(log, h.sink.all()...)
	msgs2, h2 := restored(t, again)
	if n := countType(persisted(h2.drain()), event.ToolResult); n != 0 {
		t.Errorf("%d synthetic results recorded again", n)
	}
	if got, want := contents(msgs2[:len(msgs)]), contents(msgs); !reflect.DeepEqual(got, want) {
		t.Errorf("history after the recorded answers\n%q\ndiffers from\n%q", got, want)
	}
}

func TestRestoreResumesPermissionCounterIncludingSubAgents(t *testing.T) {
	h := newHarness(t, nil, nil, nil)
	log := logOf(user("q"), event.PermissionRequestedPayload{ID: "p3", Number: 3}, answer("a"))
	log = append(log, child(ev(4, event.PermissionRequestedPayload{ID: "p7", Number: 7})))
	if err := h.e.Restore("s1", log); err != nil {
		t.Fatal(err)
	}
	if got := h.e.existing("s1").st.permSeq; got != 7 {
		t.Errorf("permission counter = %d, want 7", got)
	}
}

func TestRestoreSkipsBlockedUserMessage(t *testing.T) {
	blocked := user("interdit")
	blocked.Blocked = true
	msgs, _ := restored(t, logOf(user("q"), answer("a"), blocked))
	if got := contents(msgs); len(got) != 2 {
		t.Errorf("history = %q: the blocked message must be skipped", got)
	}
}

func TestRestoreJoinsHookContext(t *testing.T) {
	u := user("q")
	u.HookContext = "branche: main"
	c := event.ContextCompactedPayload{Summary: "résumé", Replaced: 2, HookContext: "rappel"}
	msgs, _ := restored(t, logOf(u, answer("a"), c))
	if got := contents(msgs); got[0] != "user:"+compaction.SummaryMessage("résumé\n\nrappel").Content {
		t.Errorf("summary = %q", got)
	}
	msgs, _ = restored(t, logOf(u, answer("a")))
	if got := contents(msgs); got[0] != "user:q\n\nbranche: main" {
		t.Errorf("user message = %q", got)
	}
}

func TestRestoreCompactionReplacesOldestMessages(t *testing.T) {
	msgs, _ := restored(t, logOf(
		user("q1"), answer("a1"), user("q2"), answer("a2"),
		event.ContextCompactedPayload{Summary: "résumé de q1", Replaced: 2},
		user("q3"), answer("a3"),
	))
	want := []string{"user:" + compaction.SummaryMessage("résumé de q1").Content, "user:q2", "assistant:a2", "user:q3", "assistant:a3"}
	if got := contents(msgs); !reflect.DeepEqual(got, want) {
		t.Errorf("history = %q, want %q", got, want)
	}
}

func TestRestoreRejectsInvalidLogs(t *testing.T) {
	other := logOf(user("q"))
	other[0].SessionID = "s2"
	backwards := logOf(user("q"), answer("a"))
	backwards[1].Seq = 1
	for name, log := range map[string][]event.Event{
		"compaction out of range": logOf(user("q"), event.ContextCompactedPayload{Summary: "s", Replaced: 5}),
		"negative compaction":     logOf(user("q"), event.ContextCompactedPayload{Summary: "s", Replaced: -1}),
		"rewind out of range":     logOf(user("q"), event.RewoundPayload{Mode: "both", Length: 9}),
		"unknown rewind mode":     logOf(user("q"), event.RewoundPayload{Mode: "sideways"}),
		"another session":         other,
		"seqs out of order":       backwards,
	} {
		h := newHarness(t, nil, nil, nil)
		err := h.e.Restore("s1", log)
		if !errors.Is(err, ErrInvalidLog) || !strings.Contains(err.Error(), "s1") {
			t.Errorf("%s: Restore = %v, want ErrInvalidLog naming the session", name, err)
		}
		if err := h.e.Restore("s1", nil); err != nil {
			t.Errorf("%s: a failed Restore left state behind: %v", name, err)
		}
	}
}

func TestRestoreIgnoresSubAgentEventsButClassification(t *testing.T) {
	log := logOf(user("q"), answer("a"))
	log = append(log,
		child(ev(3, user("sous-tâche"))),
		child(ev(4, callsTo("sub1"))),
		child(ev(5, result("sub1", "r"))),
		child(ev(6, event.SessionClassifiedPayload{Marking: "DIFFUSION RESTREINTE"})),
	)
	h := newHarness(t, []scripted.Step{{Text: "suite"}}, nil, func(d *Deps) {
		d.Provider = scripted.New(scripted.Config{Steps: []scripted.Step{{Text: "suite"}}, Local: true})
	})
	if err := h.e.Restore("s1", log); err != nil {
		t.Fatal(err)
	}
	if !h.e.existing("s1").st.sensitive {
		t.Errorf("a sub-agent's SessionClassified must make the session sensitive")
	}
	if err := h.submit("et ensuite ?"); err != nil {
		t.Fatal(err)
	}
	msgs := h.e.deps.Provider.(*scripted.Provider).Requests()[0].Messages
	if got := contents(msgs[1 : len(msgs)-1]); len(got) != 2 {
		t.Errorf("history = %q: sub-agent events must be ignored", got)
	}
}

// A restored sensitive session goes to no remote provider, even when it is
// the only one configured: its content was classified elsewhere.
func TestRestoredSensitiveSessionRefusesARemoteProvider(t *testing.T) {
	h := newHarness(t, nil, nil, nil) // scripted, not local, no step: a request fails the test
	if err := h.e.Restore("s1", logOf(user("q"), event.SessionClassifiedPayload{Marking: "DIFFUSION RESTREINTE"}, answer("a"))); err != nil {
		t.Fatal(err)
	}
	err := h.submit("et ensuite ?")
	if err == nil || !strings.Contains(err.Error(), "sensitive") {
		t.Fatalf("Submit = %v, want a refusal: the session is sensitive", err)
	}
	if n := len(h.p.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestRestoreMarksRemoteAnswersAndSummaries(t *testing.T) {
	msgs, _ := restored(t, logOf(
		event.SessionStartedPayload{Provider: "cloud"}, user("q1"), answer("distant"),
		event.ProviderSelectedPayload{Provider: "local", Local: true}, user("q2"), answer("local"),
		event.ContextCompactedPayload{Summary: "résumé local", Replaced: 0},
	))
	remote := map[string]bool{}
	for _, m := range msgs {
		remote[m.Content] = m.Remote
	}
	if !remote["distant"] || remote["local"] || remote["résumé local"] {
		t.Errorf("remote marks = %v", remote)
	}
}

func TestRestoreRewind(t *testing.T) {
	msgs, _ := restored(t, logOf(
		user("q1"), answer("a1"), user("q2"), answer("a2"),
		event.RewoundPayload{ToSeq: 3, Mode: "conversation", Length: 2},
	))
	if got := contents(msgs); !reflect.DeepEqual(got, []string{"user:q1", "assistant:a1"}) {
		t.Errorf("history after a conversation rewind = %q", got)
	}
	_, h := restored(t, logOf(user("q1"), answer("a1"), event.RewoundPayload{Mode: "code", Note: "Fichiers restaurés."}))
	sent := h.p.Requests()[0].Messages
	if got := sent[len(sent)-1].Content; got != "Fichiers restaurés.\n\net ensuite ?" {
		t.Errorf("next user message = %q, want the note joined", got)
	}
	if p := last[event.UserMessagePayload](t, h.drain(), event.UserMessage); p.Text != "et ensuite ?" {
		t.Errorf("the stored message must keep the user's words alone: %q", p.Text)
	}
}

func TestRestoreIgnoresOtherAndUnknownTypes(t *testing.T) {
	log := logOf(user("q"), event.ProviderRetryPayload{Attempt: 1}, answer("a"),
		event.HookStartedPayload{Hook: "h"}, event.ErrorPayload{Message: "x"})
	log = append(log, event.Event{Seq: 6, Type: "FromTheFuture", SessionID: "s1", Payload: json.RawMessage(`{}`)})
	if msgs, _ := restored(t, log); len(msgs) != 2 {
		t.Errorf("history = %q", contents(msgs))
	}
}

func TestRestoreOnActiveSession(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "a"}}, nil, nil)
	if err := h.e.Restore("s1", logOf(user("q"))); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Restore("s1", logOf(user("q"))); !errors.Is(err, ErrSessionActive) {
		t.Errorf("second Restore = %v, want ErrSessionActive", err)
	}
	if err := h.e.Submit(t.Context(), "s2", "q"); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Restore("s2", nil); !errors.Is(err, ErrSessionActive) {
		t.Errorf("Restore after Submit = %v, want ErrSessionActive", err)
	}
}

// TestRestoreMatchesLiveHistory runs a live session, then restores its
// stored events in a new engine: both must send the model the same history.
func TestRestoreMatchesLiveHistory(t *testing.T) {
	steps := []scripted.Step{
		{Text: "Je regarde.", ToolCalls: calls("echo", "echo")},
		{Text: "Voilà."},
		{Text: "suite live"},
	}
	live := newHarness(t, steps, []tools.Tool{&fakeTool{name: "echo", concurrent: true}}, nil)
	if err := live.submit("q1"); err != nil {
		t.Fatal(err)
	}
	if err := live.submit("q2"); err != nil {
		t.Fatal(err)
	}
	liveReq := live.p.Requests()[2].Messages
	log := live.sink.all()
	log = log[:len(log)-3] // drop the second turn: its user message, answer and TurnCompleted
	msgs, _ := restored(t, log)
	if !reflect.DeepEqual(contents(msgs), contents(liveReq[1:len(liveReq)-1])) {
		t.Errorf("restored history\n%q\ndiffers from live\n%q", contents(msgs), contents(liveReq[1:len(liveReq)-1]))
	}
}

// TestRestoreCommittedLogs restores the session logs committed by earlier
// versions (event/testdata/compat): each must restore, continue, and send
// the model exactly the history pinned beside it in testdata/compat, in
// every later version.
func TestRestoreCommittedLogs(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "event", "testdata", "compat", "*.jsonl"))
	if len(paths) < 2 {
		t.Fatalf("committed session logs missing: %v", paths)
	}
	for _, p := range paths {
		log, err := event.ReadJSONL(p)
		if err != nil {
			t.Fatal(err)
		}
		id := log[0].SessionID
		h := newHarness(t, []scripted.Step{{Text: "suite"}}, nil, nil)
		if err := h.e.Restore(id, log); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := h.e.Submit(t.Context(), id, "encore"); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := json.MarshalIndent(h.p.Requests()[0].Messages, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "compat", strings.TrimSuffix(filepath.Base(p), ".jsonl")+".history.json")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (create it with -update, after checking the history by eye)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s restores to a different history than %s:\n%s", p, golden, got)
		}
	}
}

func TestRestoreDropsResultsForNoPendingCall(t *testing.T) {
	msgs, h := restored(t, logOf(user("q"), callsTo("c1"), result("c1", "un"), result("c1", "encore"), result("zz", "?"), answer("a")))
	if got := contents(msgs); !reflect.DeepEqual(got, []string{"user:q", "assistant:", "tool:un", "assistant:a"}) {
		t.Errorf("history = %q", got)
	}
	checkPairing(t, h.p.Requests())
}
