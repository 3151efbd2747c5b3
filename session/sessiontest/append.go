package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/session"
)

func testRoundTrip(t *testing.T, h *harness) {
	s := h.main()
	want := samples(t, "rt")
	appendOK(t, s, want...)
	got := load(t, s, "rt")
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if i < len(got) && !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("event %d (%s):\n got %#v\nwant %#v", i, want[i].Type, got[i], want[i])
			}
		}
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	// Typed payloads come back typed (DeepEqual), and the bytes are those
	// of json.Marshal.
	sameJSON(t, got, want)
}

func testOrdering(t *testing.T, h *harness) {
	s := h.main()
	appendOK(t, s, notes("o", 1, 1)...)
	appendOK(t, s, notes("o", 2, 5)...)
	appendOK(t, s, notes("o", 6, 6)...)
	appendOK(t, s, notes("o", 7, 40)...)
	got := load(t, s, "o")
	sameJSON(t, got, notes("o", 1, 40))
	for i, e := range got {
		if e.Seq != uint64(i+1) {
			t.Fatalf("seqs %v: not 1..40 in order", seqs(got))
		}
	}
	tail, err := s.LoadFrom(context.Background(), "o", 37)
	must(t, err, "load from 37")
	if fmt.Sprint(seqs(tail)) != "[38 39 40]" {
		t.Fatalf("LoadFrom(37) seqs %v, want [38 39 40]", seqs(tail))
	}
	tail, err = s.LoadFrom(context.Background(), "o", 40)
	must(t, err, "load from 40")
	if len(tail) != 0 {
		t.Fatalf("LoadFrom(last) gave %d events, want none", len(tail))
	}
}

func testSeqConflict(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	appendOK(t, s, notes("conflict-7", 1, 3)...)
	before := info(t, s, "conflict-7")
	cases := []struct {
		name   string
		events []event.Event
	}{
		{"gap", notes("conflict-7", 5, 6)},
		{"duplicate", notes("conflict-7", 3, 4)},
		{"rewrite", notes("conflict-7", 1, 1)},
		{"gap inside the batch", append(notes("conflict-7", 4, 4), note("conflict-7", 6, "x"))},
		{"duplicate inside the batch", append(notes("conflict-7", 4, 4), note("conflict-7", 4, "x"))},
		{"seq zero", []event.Event{note("conflict-7", 0, "x")}},
	}
	for _, tc := range cases {
		err := s.Append(ctx, tc.events...)
		wantIs(t, err, session.ErrSeqConflict, tc.name)
		if !strings.Contains(err.Error(), "conflict-7") || !strings.Contains(err.Error(), "expected") {
			t.Errorf("%s: error %q should name the session and the expected seq", tc.name, err)
		}
	}
	sameJSON(t, load(t, s, "conflict-7"), notes("conflict-7", 1, 3))
	if after := info(t, s, "conflict-7"); !reflect.DeepEqual(after, before) {
		t.Fatalf("refused appends changed Info:\n got %+v\nwant %+v", after, before)
	}
	// A new session starts at 1.
	for _, first := range []uint64{0, 2} {
		err := s.Append(ctx, notes("new", first, first+1)...)
		wantIs(t, err, session.ErrSeqConflict, fmt.Sprintf("new session starting at %d", first))
		_, err = s.Info(ctx, "new")
		wantIs(t, err, session.ErrNotFound, "a refused first append created the session")
	}
	err := s.Append(ctx, notes("conflict-7", 5, 5)...)
	if !strings.Contains(err.Error(), "expected seq 4, got 5") {
		t.Fatalf("error %q should say: expected seq 4, got 5", err)
	}
	appendOK(t, s, notes("conflict-7", 4, 5)...)
}

func testEphemeral(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	delta := ev("e", 1, event.AssistantDelta, event.DeltaPayload{Text: "x"})
	delta.Ephemeral = true
	if err := s.Append(ctx, delta); err == nil {
		t.Fatal("an ephemeral delta was stored")
	}
	// The type decides, whatever the flag says…
	delta.Ephemeral = false
	if err := s.Append(ctx, delta); err == nil {
		t.Fatal("an AssistantDelta not flagged ephemeral was stored")
	}
	// …and so does the flag.
	flagged := note("e", 2, "x")
	flagged.Ephemeral = true
	if err := s.Append(ctx, append(notes("e", 1, 1), flagged)...); err == nil {
		t.Fatal("a batch with an ephemeral event was stored")
	}
	_, err := s.Info(ctx, "e")
	wantIs(t, err, session.ErrNotFound, "after refused ephemeral appends")
}

func testInvalidAppend(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	must(t, s.Append(ctx), "append nothing")
	mixed := append(notes("m1", 1, 1), notes("m2", 2, 2)...)
	if err := s.Append(ctx, mixed...); err == nil {
		t.Fatal("a batch of two sessions was stored")
	}
	if err := s.Append(ctx, notes("", 1, 1)...); err == nil {
		t.Fatal("an event without session id was stored")
	}
	if err := s.Append(ctx, ev("t", 1, "", nil)); err == nil {
		t.Fatal("an event without type was stored")
	}
	if err := s.Append(ctx, ev("t", 1, event.UserMessage, func() {})); err == nil {
		t.Fatal("an event whose payload does not encode was stored")
	}
	for _, id := range []string{"m1", "m2", "", "t"} {
		_, err := s.Info(ctx, id)
		wantIs(t, err, session.ErrNotFound, "after refused appends, session "+id)
	}
}

func testNotFound(t *testing.T, h *harness) {
	s := h.main()
	ctx := context.Background()
	_, err := s.Load(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "load")
	if !strings.Contains(err.Error(), "ghost") {
		t.Errorf("error %q does not name the session", err)
	}
	_, err = s.LoadFrom(ctx, "ghost", 3)
	wantIs(t, err, session.ErrNotFound, "load from")
	_, err = s.Info(ctx, "ghost")
	wantIs(t, err, session.ErrNotFound, "info")
	wantIs(t, s.Delete(ctx, "ghost"), session.ErrNotFound, "delete")
	_, err = s.Fork(ctx, "ghost", 1, "child")
	wantIs(t, err, session.ErrNotFound, "fork")
}

func testConcurrentSessions(t *testing.T, h *harness) {
	stores := []session.Store{h.main(), h.store(liveOther())}
	const sessions, perSession = 16, 30
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for g := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[g%len(stores)]
			id := fmt.Sprintf("s%02d", g)
			for seq := uint64(1); seq <= perSession; seq++ {
				if err := s.Append(context.Background(), note(id, seq, fmt.Sprintf("%s #%d", id, seq))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for g := range sessions {
		id := fmt.Sprintf("s%02d", g)
		sameJSON(t, load(t, stores[(g+1)%len(stores)], id), notes(id, 1, perSession))
	}
}

// testConcurrentSameSession has writers of two processes race to append
// batches of 1 to 3 events to one session: each seq is won by exactly one
// batch, batches never interleave, nothing is lost.
func testConcurrentSameSession(t *testing.T, h *harness) {
	stores := []session.Store{h.main(), h.store(liveOther())}
	const writers, total = 8, 120
	type batchKey struct{ writer, n int }
	var (
		mu  sync.Mutex
		won = map[batchKey]int{} // batch → its size, for the batches stored
		wg  sync.WaitGroup
	)
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%len(stores)]
			ctx := context.Background()
			for n := 0; ; n++ {
				var last uint64
				i, err := s.Info(ctx, "hot")
				switch {
				case err == nil:
					last = i.LastSeq
				case !errors.Is(err, session.ErrNotFound):
					errs <- err
					return
				}
				if last >= total {
					return
				}
				size := 1 + (w+n)%3
				var b []event.Event
				for k := range size {
					b = append(b, ev("hot", last+1+uint64(k), event.ToolResult, event.ToolResultPayload{
						CallID: fmt.Sprintf("w%d-b%d", w, n), Name: "race", Round: k, DurationMS: int64(size)}))
				}
				err = s.Append(ctx, b...)
				switch {
				case err == nil:
					mu.Lock()
					won[batchKey{w, n}] = size
					mu.Unlock()
				case !errors.Is(err, session.ErrSeqConflict):
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := load(t, stores[0], "hot")
	stored := 0
	for _, size := range won {
		stored += size
	}
	if len(got) != stored {
		t.Fatalf("%d events stored, the winning appends wrote %d", len(got), stored)
	}
	seen := map[string]bool{}
	for i := 0; i < len(got); {
		if got[i].Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, got[i].Seq)
		}
		p := got[i].Payload.(event.ToolResultPayload)
		if seen[p.CallID] {
			t.Fatalf("batch %s appears twice", p.CallID)
		}
		seen[p.CallID] = true
		size := int(p.DurationMS)
		for k := range size {
			if i+k >= len(got) {
				t.Fatalf("batch %s cut short", p.CallID)
			}
			q := got[i+k].Payload.(event.ToolResultPayload)
			if q.CallID != p.CallID || q.Round != k {
				t.Fatalf("seq %d: batches interleave: %s/%d inside %s", got[i+k].Seq, q.CallID, q.Round, p.CallID)
			}
		}
		i += size
	}
	if len(seen) != len(won) {
		t.Fatalf("%d batches stored, %d appends succeeded", len(seen), len(won))
	}
	if uint64(len(got)) < total {
		t.Fatalf("%d events, want at least %d", len(got), total)
	}
}
