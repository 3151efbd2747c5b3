package session

import (
	"fmt"
	"testing"

	"github.com/moteur/moteur/internal/pgtest"
)

// A stop sent from one Store reaches the Store listening on the same
// database only while a live lease of the session exists.
func TestStopsCrossStores(t *testing.T) {
	url := pgtest.Database(t)
	open := func(schema string) *Postgres {
		t.Helper()
		s, err := OpenPostgres(t.Context(), PostgresConfig{URL: url, Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	runner, asker := open("moteur"), open("moteur")
	heard := make(chan string, 64)
	if err := runner.ListenStops(t.Context(), func(id string) { heard <- id }); err != nil {
		t.Fatal(err)
	}

	if sent, err := asker.NotifyStop(t.Context(), "s-idle"); err != nil || sent {
		t.Fatalf("stop of a session no one holds: sent %v, %v; want not sent", sent, err)
	}
	lease, err := runner.Acquire(t.Context(), "s-run")
	if err != nil {
		t.Fatal(err)
	}
	// ListenStops returned: it listens, and hears the first stop.
	if sent, err := asker.NotifyStop(t.Context(), "s-run"); err != nil || !sent {
		t.Fatalf("stop of a held session: sent %v, %v", sent, err)
	}
	if got := <-heard; got != "s-run" {
		t.Fatalf("heard %q, want s-run", got)
	}
	if err := lease.Release(); err != nil {
		t.Fatal(err)
	}
	if sent, err := asker.NotifyStop(t.Context(), "s-run"); err != nil || sent {
		t.Errorf("stop after the lease was released: sent %v, %v; want not sent", sent, err)
	}
}

// The end of a permission request, answered through another Store, closes
// the channel of ApprovalEnded at once: told by PostgreSQL, not found by a
// look in the store; a wait stopped before the end is not woken.
func TestApprovalEndedAcrossStores(t *testing.T) {
	url := pgtest.Database(t)
	open := func() *Postgres {
		t.Helper()
		s, err := OpenPostgres(t.Context(), PostgresConfig{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	asker, answerer := open(), open()
	if err := asker.Append(t.Context(), turnEvent("s-ask", 1)); err != nil {
		t.Fatal(err)
	}
	lease, err := asker.Acquire(t.Context(), "s-ask")
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	for _, n := range []uint64{1, 2} {
		a := Approval{ID: fmt.Sprintf("s-ask/%d", n), SessionID: "s-ask", Number: n, CallID: "call", Tool: "write_file", Risk: "write"}
		if err := asker.OpenApproval(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	ended, stop, ok := asker.ApprovalEnded("s-ask/1")
	if !ok {
		t.Fatal("the asker cannot listen")
	}
	defer stop()
	other, stopOther, _ := asker.ApprovalEnded("s-ask/2")
	stopOther()
	still, stopStill, _ := asker.ApprovalEnded("s-ask/2")
	defer stopStill()
	if _, err := answerer.AnswerApproval(t.Context(), "s-ask/1", Answer{Allow: true}, "user"); err != nil {
		t.Fatal(err)
	}
	<-ended // a hang here is the test's failure: the deadline of go test ends it
	if _, err := answerer.WithdrawApproval(t.Context(), "s-ask/2", "timeout"); err != nil {
		t.Fatal(err)
	}
	<-still // the end of s-ask/2 was relayed: the stopped wait had its chance
	select {
	case <-other:
		t.Error("a stopped wait was woken")
	default:
	}
}
