package session

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/moteur/moteur/event"
)

func TestSinkStoresEachEventAndReportsConflicts(t *testing.T) {
	st := openTest(t, filepath.Join(t.TempDir(), "m.db"))
	sink := Sink{Store: st}
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for seq, p := range []any{event.SessionStartedPayload{Provider: "p"}, event.UserMessagePayload{Text: "bonjour"}} {
		typ := event.SessionStarted
		if seq == 1 {
			typ = event.UserMessage
		}
		if err := sink.Write(t.Context(), event.Event{Seq: uint64(seq + 1), Type: typ, SessionID: "s", Time: at, Payload: p}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Load(t.Context(), "s")
	if err != nil || len(got) != 2 || got[1].Payload.(event.UserMessagePayload).Text != "bonjour" {
		t.Fatalf("Load = %v, %v", got, err)
	}
	// A sink must not hide a failure: the engine stops on it.
	err = sink.Write(t.Context(), event.Event{Seq: 2, Type: event.UserMessage, SessionID: "s", Time: at, Payload: event.UserMessagePayload{}})
	if !errors.Is(err, ErrSeqConflict) {
		t.Errorf("a duplicate seq through the sink = %v, want ErrSeqConflict", err)
	}
}
