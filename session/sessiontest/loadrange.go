package sessiontest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

// page reads one page of LoadRange, failing the test on an error.
func page(t *testing.T, s session.Store, id string, after uint64, limit int) []event.Event {
	t.Helper()
	evs, err := s.LoadRange(context.Background(), id, after, limit)
	must(t, err, fmt.Sprintf("load range of %s after %d, limit %d", id, after, limit))
	return evs
}

// testLoadRange: pages of LoadRange are the events after `after`, at most
// limit of them, and put end to end they are Load.
func testLoadRange(t *testing.T, h *harness) {
	s := h.main()
	const total = 300
	appendOK(t, s, notes("p", 1, total/2)...)
	appendOK(t, s, notes("p", total/2+1, total)...)
	all := load(t, s, "p")
	for _, limit := range []int{1, 7, 100, total - 1, total, total + 1, 5000} {
		var got []event.Event
		for after := uint64(0); ; {
			evs := page(t, s, "p", after, limit)
			if want := min(limit, total-int(after)); len(evs) != want {
				t.Fatalf("limit %d after %d: %d events, want %d", limit, after, len(evs), want)
			}
			if len(evs) == 0 {
				break
			}
			if evs[0].Seq != after+1 {
				t.Fatalf("limit %d after %d: the page starts at seq %d", limit, after, evs[0].Seq)
			}
			got = append(got, evs...)
			after = evs[len(evs)-1].Seq
		}
		sameJSON(t, got, all)
	}
	if got := seqs(page(t, s, "p", 10, 5)); !slices.Equal(got, []uint64{11, 12, 13, 14, 15}) {
		t.Fatalf("LoadRange(10, 5) seqs %v, want 11..15", got)
	}
	// No limit is LoadFrom.
	for _, limit := range []int{0, -1, math.MinInt} {
		sameJSON(t, page(t, s, "p", 250, limit), notes("p", 251, total))
	}
	// After the end, nothing and no error.
	for _, after := range []uint64{total, total + 1, 1 << 40, math.MaxUint64} {
		if evs := page(t, s, "p", after, 10); len(evs) != 0 {
			t.Fatalf("LoadRange after %d: %d events, want none", after, len(evs))
		}
	}
	_, err := s.LoadRange(context.Background(), "ghost", 0, 10)
	wantIs(t, err, session.ErrNotFound, "load range of an unknown session")
	// LoadFrom and Load agree with it.
	tail, err := s.LoadFrom(context.Background(), "p", 297)
	must(t, err, "load from 297")
	sameJSON(t, tail, page(t, s, "p", 297, 0))
}
