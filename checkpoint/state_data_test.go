package checkpoint

import (
	"reflect"

	"github.com/moteur/moteur/event"
	"strings"
	"testing"
	"time"
)

// TestStateDataRoundTrip: a state's data gives back an equal state, and
// content no events could have produced is refused.
func TestStateDataRoundTrip(t *testing.T) {
	d := StateData{Session: "s1", Last: 9,
		Points: []Point{{Seq: 2, Prompt: "a", Time: time.Unix(1, 0).UTC()}, {Seq: 6, Prompt: "b", Time: time.Unix(2, 0).UTC()}},
		Files:  map[string][]WriteData{"a.go": {{Call: Call{Seq: 4, CallID: "c1", Tool: "write_file"}, After: "h1"}}},
		Calls:  []Call{{Seq: 5, CallID: "c2", Tool: "shell_exec", Risk: "destructive"}}}
	s, err := FromData(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Data(); !reflect.DeepEqual(got, d) {
		t.Fatalf("round trip:\n got  %+v\n want %+v", got, d)
	}
	bad := d
	bad.Points = []Point{{Seq: 6}, {Seq: 2}}
	if _, err := FromData(bad); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("points out of order: %v", err)
	}
	bad = d
	bad.Calls = []Call{{Seq: 10}}
	if _, err := FromData(bad); err == nil {
		t.Fatal("a call after the last seq accepted")
	}
}

// TestStateSplitKeepsPointsUndecoded: a state from FromSplit goes on as
// the state it was split from — points applied since come after the older
// ones, Plan and Points see them all, a split again holds them all — and
// points that do not decode make Plan fail, saying so.
func TestStateSplitKeepsPointsUndecoded(t *testing.T) {
	at := time.Unix(1, 0).UTC()
	user := func(seq uint64, text string) event.Event {
		return event.Event{Seq: seq, Type: event.UserMessage, SessionID: "s1", Time: at, Payload: event.UserMessagePayload{Text: text}}
	}
	whole := &State{}
	for i, text := range []string{"a", "b", "c"} {
		whole.Apply(user(uint64(2*i+1), text))
	}
	d, points, err := whole.Split()
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromSplit(d, points)
	if err != nil {
		t.Fatal(err)
	}
	if s.older == nil {
		t.Fatal("FromSplit decoded the points")
	}
	s.Apply(user(7, "d"))
	whole.Apply(user(7, "d"))
	// Split again without decoding: the older array and the new point.
	d2, points2, err := s.Split()
	if err != nil {
		t.Fatal(err)
	}
	if s.older == nil {
		t.Fatal("Split decoded the points")
	}
	again, err := FromSplit(d2, points2)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*State{s, again} {
		if got, want := st.Points(), whole.Points(); !reflect.DeepEqual(got, want) {
			t.Fatalf("points:\n got  %+v\n want %+v", got, want)
		}
		if _, err := st.Plan(t.TempDir(), 3); err != nil {
			t.Fatalf("plan to an older point: %v", err)
		}
	}
	if _, err := FromSplit(d, []byte(`{"seq":1}`)); err == nil {
		t.Fatal("points that are not an array accepted")
	}
	bad, err := FromSplit(d, []byte(`[{"seq":5},{"seq":1}]`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Plan(t.TempDir(), 5); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("plan over points out of order: %v", err)
	}
}
