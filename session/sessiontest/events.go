package sessiontest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/session"
)

// base is the time of seq 0 of every session the suite writes; seq n is n
// seconds later.
var base = time.Date(2026, 3, 14, 9, 26, 53, 589793000, time.UTC)

// ev builds an event of session id.
func ev(id string, seq uint64, typ event.Type, payload any) event.Event {
	return event.Event{Seq: seq, Type: typ, SessionID: id, Time: base.Add(time.Duration(seq) * time.Second), Payload: payload}
}

// note is a filler event carrying text.
func note(id string, seq uint64, text string) event.Event {
	return ev(id, seq, event.ToolResult, event.ToolResultPayload{CallID: "c", Name: "note", Content: text})
}

// notes builds the events from..to of a session.
func notes(id string, from, to uint64) []event.Event {
	var out []event.Event
	for s := from; s <= to; s++ {
		out = append(out, note(id, s, fmt.Sprintf("%s #%d", id, s)))
	}
	return out
}

// samplePayloads are typed payloads with every kind of field set.
var samplePayloads = map[event.Type]any{
	event.SessionStarted: event.SessionStartedPayload{Provider: "mistral", Model: "large", ProjectRoot: "/src/p",
		Instructions: []string{"AGENTS.md"}, Tools: []string{"read_file", "shell_exec"}, MaxIterations: 50, Lang: "fr", Local: true},
	event.UserMessage: event.UserMessagePayload{Text: "Résume le fichier <a&b>.txt\nsvp", Typed: "/resume a",
		Skill: "resume", SkillSHA256: "ab12", HookContext: "ctx"},
	event.AssistantMessage: event.AssistantMessagePayload{Text: "je lis", Reasoning: "r",
		ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}},
		Finish:    "tool_calls", Round: 1, Usage: &llm.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15},
		Provider: "mistral", Model: "large"},
	event.ToolResult: event.ToolResultPayload{CallID: "c1", Name: "read_file", Content: "ligne 1\n\u2028\"x\"",
		IsError: true, Display: "d", Truncated: true, DurationMS: 12, Round: 1, Risk: "read", Synthetic: true},
	event.TurnCompleted: event.TurnCompletedPayload{Reason: event.StopNatural, Answer: "fini", Rounds: 2, Requests: 3,
		Usage: llm.Usage{TotalTokens: 30}},
}

// samples is one event of each persisted type this version knows, in a
// stable order, then one of a type it does not know (kept as raw JSON).
func samples(t *testing.T, id string) []event.Event {
	t.Helper()
	var types []event.Type
	for _, typ := range event.Types() {
		if spec, _ := event.SpecOf(typ); spec.Persisted {
			types = append(types, typ)
		}
	}
	sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
	var out []event.Event
	for i, typ := range types {
		p, ok := samplePayloads[typ]
		if !ok {
			p = zeroPayload(t, typ)
		}
		e := ev(id, uint64(i+1), typ, p)
		if i%3 == 1 {
			e.ParentCallID = "call-7"
		}
		out = append(out, e)
	}
	out = append(out, ev(id, uint64(len(out)+1), "FromTheFuture", json.RawMessage(`{"x":[1,2,{"y":"z"}]}`)))
	return out
}

// zeroPayload is the zero value of typ's payload struct, as event.Decode
// builds it.
func zeroPayload(t *testing.T, typ event.Type) any {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"type": typ, "payload": map[string]any{}})
	e, err := event.Decode(b)
	if err != nil {
		t.Fatalf("zero payload of %s: %v", typ, err)
	}
	return e.Payload
}

// load loads a session, failing the test on an error.
func load(t *testing.T, s session.Store, id string) []event.Event {
	t.Helper()
	evs, err := s.Load(context.Background(), id)
	must(t, err, "load "+id)
	return evs
}

// info reads a session's Info, failing the test on an error.
func info(t *testing.T, s session.Store, id string) session.Info {
	t.Helper()
	i, err := s.Info(context.Background(), id)
	must(t, err, "info "+id)
	return i
}

// appendOK appends, failing the test on an error.
func appendOK(t *testing.T, s session.Store, events ...event.Event) {
	t.Helper()
	must(t, s.Append(context.Background(), events...), "append")
}

// sameJSON fails unless got and want encode to the same JSON, event by
// event.
func sameJSON(t *testing.T, got, want []event.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			t.Fatalf("event %d:\n got %s\nwant %s", i, g, w)
		}
	}
}

// seqs lists the seqs of events.
func seqs(events []event.Event) []uint64 {
	out := make([]uint64, len(events))
	for i, e := range events {
		out[i] = e.Seq
	}
	return out
}
