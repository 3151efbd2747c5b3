package checkpoint

import (
	"reflect"
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
