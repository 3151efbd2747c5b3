package session

import (
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
