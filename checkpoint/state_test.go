package checkpoint

import (
	"github.com/moteur/moteur/effect"
	"reflect"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
)

func TestPointsIgnoreBlockedMessages(t *testing.T) {
	s := newSim(t, t.TempDir(), openStore(t))
	p1 := s.user("premier")
	s.emit(event.UserMessage, "", event.UserMessagePayload{Text: "refusé", Blocked: true})
	// A sub-agent's task is not a point of the session.
	s.emit(event.UserMessage, "call-9", event.UserMessagePayload{Text: "tâche du sous-agent"})
	p2 := s.emit(event.UserMessage, "", event.UserMessagePayload{Text: "texte de la compétence", Typed: "/resume a"})

	got := s.live.Points()
	want := []Point{
		{Seq: p2, Prompt: "/resume a", Time: time.Date(2025, 3, 1, 10, 0, int(p2), 0, time.UTC)},
		{Seq: p1, Prompt: "premier", Time: time.Date(2025, 3, 1, 10, 0, int(p1), 0, time.UTC)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Points = %+v\nwant %+v", got, want)
	}
}

func TestStateIgnoresReplayedAndForeignEvents(t *testing.T) {
	var st State
	msg := func(seq uint64, session string) event.Event {
		return event.Event{Seq: seq, Type: event.UserMessage, SessionID: session,
			Payload: event.UserMessagePayload{Text: "m"}}
	}
	st.Apply(msg(1, "a"))
	st.Apply(msg(1, "a")) // replayed
	st.Apply(msg(2, "b")) // another session
	st.Apply(event.Event{Type: event.UserMessage, Payload: event.UserMessagePayload{Text: "x"}, Ephemeral: true})
	st.Apply(msg(3, "a"))
	if got := st.Points(); len(got) != 2 || got[0].Seq != 3 || got[1].Seq != 1 {
		t.Fatalf("Points = %+v, want seqs 3 and 1", got)
	}
}

func TestConversationRewindDropsLaterPoints(t *testing.T) {
	s := newSim(t, t.TempDir(), openStore(t))
	p1 := s.user("un")
	p2 := s.user("deux")
	s.user("trois")
	s.emit(event.Rewound, "", event.RewoundPayload{ToSeq: p2, Mode: "both"})
	got := s.live.Points()
	if len(got) != 2 || got[0].Seq != p2 || got[1].Seq != p1 {
		t.Fatalf("after a rewind of the conversation to %d, Points = %+v", p2, got)
	}
	// A code rewind keeps the conversation, so every point.
	s.user("quatre")
	s.emit(event.Rewound, "", event.RewoundPayload{ToSeq: p1, Mode: "code"})
	if got := s.live.Points(); len(got) != 3 {
		t.Fatalf("after a code rewind, Points = %+v, want 3", got)
	}
}

// Writes of a sub-agent happen on the session's disk: they are rewound
// with it.
func TestSubAgentWritesCount(t *testing.T) {
	s := newSim(t, t.TempDir(), openStore(t))
	p1 := s.user("go")
	c := s.change("sub.txt", []byte("x"))
	s.emit(event.ToolResult, "call-1", event.ToolResultPayload{CallID: "c2", Name: "write_file", Changes: []effect.Change{c}})
	if p := s.plan(p1); len(p.Files) != 1 || p.Files[0].Path != "sub.txt" {
		t.Fatalf("plan %+v, want sub.txt", p)
	}
}
