package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider/scripted"
	storage "github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// openStore opens a real SQLite session store in the test's directory;
// each call is another handle on the same file, as another process would
// have.
func openStore(t *testing.T, dir string) *storage.SQLite {
	t.Helper()
	st, err := storage.OpenSQLite(t.Context(), storage.SQLiteConfig{Path: filepath.Join(dir, "moteur.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// storeEngine is an engine whose events go to st and are read back from it.
func storeEngine(t *testing.T, st *storage.SQLite, steps []scripted.Step, toolset []tools.Tool, tweak func(*Deps)) (*Engine, *scripted.Provider) {
	t.Helper()
	reg := tools.NewRegistry(tools.Config{})
	for _, tl := range toolset {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	p := scripted.New(scripted.Config{Steps: steps})
	d := Deps{Provider: p, Tools: reg, Sinks: []event.Sink{storage.Sink{Store: st}}, Store: st, Now: fixedClock(),
		RetryDelays: []time.Duration{time.Microsecond}, SystemPrompt: "SYSTEM"}
	if tweak != nil {
		tweak(&d)
	}
	e, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { checkPairing(t, p.Requests()) })
	return e, p
}

// turnSteps are the provider's answers for four turns: tool rounds with
// parallel calls, and plain answers.
func turnSteps() [][]scripted.Step {
	two := scripted.Step{ToolCalls: []llm.ToolCall{{ID: "a", Name: "echo", Arguments: `{"q":"1"}`}, {ID: "b", Name: "echo", Arguments: `{"q":"2"}`}}}
	return [][]scripted.Step{
		{scripted.Call("c1", "echo", `{"q":"x"}`), {Text: "un"}},
		{{Text: "deux"}},
		{two, scripted.Call("c3", "echo", `{"q":"y"}`), {Text: "trois"}},
		{{Text: "quatre"}},
	}
}

func echoTool() tools.Tool {
	return &fakeTool{name: "echo", concurrent: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "echo " + string(args)}, nil
	}}
}

// TestTwoEnginesAlternateTurns: two engines on one SQLite file, taking
// turns of one session, send the model exactly the history one engine
// sends, and the store holds one gapless log.
func TestTwoEnginesAlternateTurns(t *testing.T) {
	turns := turnSteps()
	prompts := []string{"q1", "q2", "q3", "q4"}

	var all []scripted.Step
	for _, s := range turns {
		all = append(all, s...)
	}
	one, p1 := storeEngine(t, openStore(t, t.TempDir()), all, []tools.Tool{echoTool()}, nil)
	for _, q := range prompts {
		if err := one.Submit(t.Context(), "s1", q); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	stA, stB := openStore(t, dir), openStore(t, dir)
	engA, pA := storeEngine(t, stA, append(append([]scripted.Step{}, turns[0]...), turns[2]...), []tools.Tool{echoTool()}, nil)
	engB, pB := storeEngine(t, stB, append(append([]scripted.Step{}, turns[1]...), turns[3]...), []tools.Tool{echoTool()}, nil)
	for i, q := range prompts {
		e := engA
		if i%2 == 1 {
			e = engB
		}
		if err := e.Submit(t.Context(), "s1", q); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	ra, rb := pA.Requests(), pB.Requests()
	// The single engine's requests, turn by turn: 2, 1, 3, 1.
	ref := p1.Requests()
	alternated := [][]llm.Request{ra[:2], rb[:1], ra[2:], rb[1:]}
	k := 0
	for turn, reqs := range alternated {
		for _, r := range reqs {
			if !reflect.DeepEqual(r.Messages, ref[k].Messages) {
				t.Fatalf("turn %d, request %d: history differs from one engine's:\n got  %s\n want %s", turn+1, k+1, contents(r.Messages), contents(ref[k].Messages))
			}
			k++
		}
	}
	if k != len(ref) {
		t.Fatalf("%d requests alternated, %d for one engine", k, len(ref))
	}
	evs, err := stA.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("stored seq %d at %d", ev.Seq, i+1)
		}
	}
	// Each engine recorded what it runs the session with, once.
	starts := 0
	for _, ev := range evs {
		if ev.Type == event.SessionStarted {
			starts++
		}
	}
	if starts != 2 {
		t.Errorf("%d SessionStarted for two engines", starts)
	}
}

// TestNewEngineContinuesFromTheStore: an engine that never ran the session
// continues it from the store, with the state the first one had.
func TestNewEngineContinuesFromTheStore(t *testing.T) {
	dir := t.TempDir()
	turns := turnSteps()
	a, _ := storeEngine(t, openStore(t, dir), append(append([]scripted.Step{}, turns[0]...), turns[2]...), []tools.Tool{echoTool()}, nil)
	for _, q := range []string{"q1", "q2"} {
		if err := a.Submit(t.Context(), "s1", q); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := storeEngine(t, openStore(t, dir), turns[3], []tools.Tool{echoTool()}, nil)
	if err := b.Submit(t.Context(), "s1", "q3"); err != nil {
		t.Fatal(err)
	}
	stored, err := openStore(t, dir).Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := mustReplay(t, stored)
	sameState(t, "engine B after its turn", b.existing("s1").st, want)
}

func mustReplay(t *testing.T, evs []event.Event) *state {
	t.Helper()
	st, err := replay(newState(evs[0].SessionID), evs)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sameState compares two states through their encoding, which holds every
// field.
func sameState(t *testing.T, what string, got, want *state) {
	t.Helper()
	g, err := got.encode()
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.encode()
	if err != nil {
		t.Fatal(err)
	}
	if string(g) != string(w) {
		t.Fatalf("%s: state differs from the one its events rebuild:\n got  %s\n want %s", what, g, w)
	}
}

// blockingTool runs until release is closed, saying when it started.
func blockingTool(started chan<- struct{}, release <-chan struct{}) tools.Tool {
	var once sync.Once
	return &fakeTool{name: "wait", run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		once.Do(func() { close(started) })
		select {
		case <-release:
		case <-ctx.Done():
		}
		return tools.Result{Content: "waited"}, nil
	}}
}

// follow reads a follower until the persisted event of type until arrives.
func follow(t *testing.T, ch <-chan event.Event, until event.Type) []event.Event {
	t.Helper()
	var got []event.Event
	for ev := range ch {
		got = append(got, ev)
		if ev.Type == until && !ev.Ephemeral {
			return got
		}
	}
	t.Fatalf("follower closed before a %s: %v", until, types(got))
	return nil
}

// TestFollowerAttachedMidTurn sees every persisted event of the session
// once, in order: those stored before it came, then the live ones.
func TestFollowerAttachedMidTurn(t *testing.T) {
	st := openStore(t, t.TempDir())
	started, release := make(chan struct{}), make(chan struct{})
	e, _ := storeEngine(t, st, []scripted.Step{{Text: "avant"}, scripted.Call("w1", "wait", `{}`), {Text: "fini"}},
		[]tools.Tool{blockingTool(started, release)}, nil)
	if err := e.Submit(t.Context(), "s1", "premier tour"); err != nil {
		t.Fatal(err)
	}
	firstTurn := e.existing("s1").st.seq
	done := make(chan error, 1)
	go func() { done <- e.Submit(context.Background(), "s1", "second tour") }()
	<-started
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch, err := e.SubscribeSession(ctx, "s1", firstTurn)
	if err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := follow(t, ch, event.TurnCompleted)
	stored, err := st.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for _, ev := range got {
		if !ev.Ephemeral {
			seqs = append(seqs, ev.Seq)
		}
	}
	var want []uint64
	for _, ev := range stored[firstTurn:] {
		want = append(want, ev.Seq)
	}
	if !reflect.DeepEqual(seqs, want) {
		t.Fatalf("follower saw seqs %v, the store holds %v after seq %d", seqs, want, firstTurn)
	}
	cancel()
	for range ch { // closed once ctx ends
	}
}

// TestFollowerThatFallsBehind never makes the engine wait: a follower that
// reads nothing while 300 turns run is told it fell behind, then gets every
// persisted event once, in order, from the store.
func TestFollowerThatFallsBehind(t *testing.T) {
	st := openStore(t, t.TempDir())
	const turns = 300
	steps := make([]scripted.Step, turns)
	for i := range steps {
		steps[i] = scripted.Step{Text: "réponse"}
	}
	e, _ := storeEngine(t, st, steps, nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch, err := e.SubscribeSession(ctx, "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	for range turns {
		if err := e.Submit(t.Context(), "s1", "encore"); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := st.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) <= followerBuffer {
		t.Fatalf("only %d events: the follower cannot have fallen behind", len(stored))
	}
	lagged := false
	var next uint64 = 1
	for next <= uint64(len(stored)) {
		ev, ok := <-ch
		if !ok {
			t.Fatalf("follower closed at seq %d", next)
		}
		if ev.Ephemeral {
			if w, ok := ev.Payload.(event.WarningPayload); ok && w.Kind == "follower_lagged" {
				lagged = true
			}
			continue
		}
		if ev.Seq != next {
			t.Fatalf("follower got seq %d, want %d", ev.Seq, next)
		}
		next++
	}
	if !lagged {
		t.Error("the follower fell behind without being told")
	}
}

// TestFollowAfterTheEnd is refused, naming the session and its last seq.
func TestFollowAfterTheEnd(t *testing.T) {
	st := openStore(t, t.TempDir())
	e, _ := storeEngine(t, st, []scripted.Step{{Text: "ok"}}, nil, nil)
	if err := e.Submit(t.Context(), "s1", "q"); err != nil {
		t.Fatal(err)
	}
	last := e.existing("s1").st.seq
	_, err := e.SubscribeSession(t.Context(), "s1", last+5)
	if err == nil || !errors.Is(err, ErrFollowAfterEnd) || !strings.Contains(err.Error(), "s1") {
		t.Fatalf("follow after the end: %v", err)
	}
	if _, err := e.SubscribeSession(t.Context(), "s1", last); err != nil {
		t.Fatalf("follow from the end: %v", err)
	}
}

// confirmWrites asks before every write.
func confirmWrites(d *Deps) {
	perms, err := policy.NewPermissions(policy.PermissionsConfig{Mode: policy.Confirm})
	if err != nil {
		panic(err)
	}
	d.Permissions = perms
}

// writeTool counts its runs.
func writeTool(runs *atomic.Int32) tools.Tool {
	return &fakeTool{name: "write", risk: effect.RiskWrite, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		runs.Add(1)
		return tools.Result{Content: "written"}, nil
	}}
}

// waitRequest returns the first PermissionRequested a follower sees.
func waitRequest(t *testing.T, ch <-chan event.Event) event.PermissionRequestedPayload {
	t.Helper()
	for ev := range ch {
		if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
			return p
		}
	}
	t.Fatal("no PermissionRequested")
	return event.PermissionRequestedPayload{}
}

// TestApprovalFromAnotherEngine: a request of one engine's turn is answered
// through another engine on the store (as another process would); the call
// runs once, and a second answer does not count.
func TestApprovalFromAnotherEngine(t *testing.T) {
	dir := t.TempDir()
	var runs atomic.Int32
	a, _ := storeEngine(t, openStore(t, dir), []scripted.Step{scripted.Call("w1", "write", `{"q":"f"}`), {Text: "écrit"}},
		[]tools.Tool{writeTool(&runs)}, confirmWrites)
	other, err := New(Deps{Store: openStore(t, dir)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch, err := a.SubscribeSession(ctx, "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Submit(context.Background(), "s1", "écris f") }()
	req := waitRequest(t, ch)
	if err := other.Respond(req.ID, Reply{Allow: true}); err != nil {
		t.Fatalf("answer from the other engine: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the approved call ran %d times", n)
	}
	if err := other.Respond(req.ID, Reply{Allow: false}); !errors.Is(err, ErrUnknownPermission) {
		t.Fatalf("second answer: %v, want ErrUnknownPermission", err)
	}
	if err := a.Respond(req.ID, Reply{Allow: true}); !errors.Is(err, ErrUnknownPermission) {
		t.Fatalf("third answer, through the asking engine: %v", err)
	}
	res := follow(t, ch, event.TurnCompleted)
	r := last[event.PermissionResolvedPayload](t, res, event.PermissionResolved)
	if !r.Allow || r.By != "user" {
		t.Errorf("resolved %+v", r)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the call ran %d times after the extra answers", n)
	}
}

// TestKilledWhileWaitingForApproval: a process stopped while its round
// waited for an approval; the session continued elsewhere tells the model
// the calls did not run (not that they may have), records the request as
// interrupted, withdraws it from the store, and runs none of them.
func TestKilledWhileWaitingForApproval(t *testing.T) {
	dir := t.TempDir()
	var runs atomic.Int32
	calls := scripted.Step{ToolCalls: []llm.ToolCall{{ID: "w1", Name: "write", Arguments: `{"q":"a"}`}, {ID: "w2", Name: "write", Arguments: `{"q":"b"}`}}}
	a, _ := storeEngine(t, openStore(t, dir), []scripted.Step{calls}, []tools.Tool{writeTool(&runs)}, confirmWrites)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ch, err := a.SubscribeSession(ctx, "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	turnCtx, stopTurn := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Submit(turnCtx, "s1", "écris a et b") }()
	req := waitRequest(t, ch)

	// What the store holds now is what a SIGKILL would leave: copy it to
	// a fresh store, as the next process finds it.
	src := openStore(t, dir)
	evs, err := src.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	stopTurn()
	<-done
	dir2 := t.TempDir()
	st2 := openStore(t, dir2)
	if err := st2.Append(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	if err := st2.OpenApproval(t.Context(), storage.Approval{ID: req.ID, SessionID: "s1", Number: req.Number, CallID: req.CallID, Tool: req.Tool}); err != nil {
		t.Fatal(err)
	}
	runs.Store(0)
	b, pb := storeEngine(t, st2, []scripted.Step{{Text: "rien n'a été écrit"}}, []tools.Tool{writeTool(&runs)}, confirmWrites)
	if err := b.Submit(t.Context(), "s1", "alors ?"); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("a call that waited for approval ran %d times after the restart", n)
	}
	first := pb.Requests()[0].Messages
	answered := 0
	for _, m := range first {
		if m.Role == llm.RoleTool {
			answered++
			if m.Content != notRunAnswer {
				t.Errorf("call %s answered %q, want that it did not run", m.ToolCallID, m.Content)
			}
		}
	}
	if answered != 2 {
		t.Fatalf("%d calls answered, want 2: %s", answered, contents(first))
	}
	after, err := st2.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	interrupted := false
	for _, ev := range after[len(evs):] {
		if p, ok := ev.Payload.(event.PermissionResolvedPayload); ok && p.ID == req.ID && p.By == resolvedInterrupted && !p.Allow {
			interrupted = true
		}
	}
	if !interrupted {
		t.Error("the continued session did not record the request as interrupted")
	}
	row, err := st2.Approval(t.Context(), req.ID)
	if err != nil {
		t.Fatal(err)
	}
	if row.State != storage.ApprovalWithdrawn || row.By != resolvedInterrupted {
		t.Errorf("the stored request is %s by %q, want withdrawn by interrupted", row.State, row.By)
	}
	if err := b.Respond(req.ID, Reply{Allow: true}); !errors.Is(err, ErrUnknownPermission) {
		t.Errorf("an answer to the interrupted request: %v", err)
	}
}

// recordingStore records the seqs the engine reads a session back from.
type recordingStore struct {
	*storage.SQLite
	mu     sync.Mutex
	afters []uint64
}

func (r *recordingStore) LoadFrom(ctx context.Context, id string, after uint64) ([]event.Event, error) {
	r.mu.Lock()
	r.afters = append(r.afters, after)
	r.mu.Unlock()
	return r.SQLite.LoadFrom(ctx, id, after)
}

// snapshotSession runs three turns of s1 with a snapshot after each, and
// returns the requests one engine sends for a fourth turn as reference.
func snapshotSession(t *testing.T, dir string) (ref []llm.Request) {
	t.Helper()
	turns := turnSteps()
	a, _ := storeEngine(t, openStore(t, dir), append(append(append([]scripted.Step{}, turns[0]...), turns[1]...), turns[2]...),
		[]tools.Tool{echoTool()}, func(d *Deps) { d.SnapshotEvery = 1 })
	for _, q := range []string{"q1", "q2", "q3"} {
		if err := a.Submit(t.Context(), "s1", q); err != nil {
			t.Fatal(err)
		}
	}
	// The reference: the whole log replayed by an engine without
	// snapshots.
	evs, err := openStore(t, dir).Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, turns[3], []tools.Tool{echoTool()}, nil)
	if err := h.e.Restore("s1", evs); err != nil {
		t.Fatal(err)
	}
	if err := h.submit("q4"); err != nil {
		t.Fatal(err)
	}
	return h.p.Requests()
}

// TestContinueFromSnapshot: an engine that never ran the session reads its
// latest snapshot and only the events after it, and sends what a replay of
// the whole log sends.
func TestContinueFromSnapshot(t *testing.T) {
	dir := t.TempDir()
	ref := snapshotSession(t, dir)
	st := &recordingStore{SQLite: openStore(t, dir)}
	snap, ok, err := st.LatestSnapshot(t.Context(), "s1")
	if err != nil || !ok {
		t.Fatalf("no snapshot after three turns: %v", err)
	}
	info, err := st.Info(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Seq != info.LastSeq {
		t.Fatalf("snapshot at seq %d, the session ends at %d", snap.Seq, info.LastSeq)
	}
	continueFromSnapshot(t, st, snap, ref, "the snapshot")
}

// continueFromSnapshot runs the fourth turn of the session of
// snapshotSession on an engine that never ran it, and checks that it read
// the session from snap alone, sent the model what a replay of the whole
// log (ref) sends, and holds the state a replay gives. It returns the
// stored events after the turn.
func continueFromSnapshot(t *testing.T, st *recordingStore, snap storage.Snapshot, ref []llm.Request, what string) []event.Event {
	t.Helper()
	b, pb := storeEngine(t, st.SQLite, turnSteps()[3], []tools.Tool{echoTool()}, func(d *Deps) { d.Store = st })
	if err := b.Submit(t.Context(), "s1", "q4"); err != nil {
		t.Fatal(err)
	}
	if len(st.afters) == 0 || st.afters[0] != snap.Seq-1 {
		t.Fatalf("the engine read the session from %v, want from %s's seq %d", st.afters, what, snap.Seq-1)
	}
	if got := pb.Requests(); !reflect.DeepEqual(got[0].Messages, ref[0].Messages) {
		t.Fatalf("from %s:\n%s\nfrom the whole log:\n%s", what, contents(got[0].Messages), contents(ref[0].Messages))
	}
	evs, err := st.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "after the turn continued from "+what, b.existing("s1").st, mustReplay(t, evs))
	return evs
}

// TestSnapshotThatDoesNotMatchIsSetAside: a snapshot that does not decode,
// fails its checksum, is of another version, describes an impossible state
// or was taken at another event is set aside: the state is rebuilt from the
// events, the turn records a Warning that names the session, and no stored
// event changes.
func TestSnapshotThatDoesNotMatchIsSetAside(t *testing.T) {
	cases := map[string]func(t *testing.T, data []byte, st *state) []byte{
		"garbage": func(*testing.T, []byte, *state) []byte { return []byte("{not json") },
		"checksum": func(t *testing.T, data []byte, _ *state) []byte {
			// The history edited, the checksum kept.
			out := strings.Replace(string(data), `"q2"`, `"q?"`, 1)
			if out == string(data) {
				t.Fatal("nothing to edit in the snapshot")
			}
			return []byte(out)
		},
		"version": func(t *testing.T, data []byte, _ *state) []byte {
			out := strings.Replace(string(data), `{"v":3,`, `{"v":99,`, 1)
			if out == string(data) {
				t.Fatal("no version to change in the snapshot")
			}
			return []byte(out)
		},
		"impossible": func(t *testing.T, _ []byte, st *state) []byte {
			st.usageAt = len(st.history) + 5
			return mustEncode(t, st)
		},
		"other event": func(t *testing.T, _ []byte, st *state) []byte {
			st.last.Time++
			return mustEncode(t, st)
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			ref, st, snap, good := storedSnapshot(t)
			snap.Data = spoil(t, snap.Data, good)
			if err := st.SaveSnapshot(t.Context(), "s1", snap); err != nil {
				t.Fatal(err)
			}
			before, err := st.Load(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			b, pb := storeEngine(t, st.SQLite, turnSteps()[3], []tools.Tool{echoTool()}, func(d *Deps) { d.Store = st })
			if err := b.Submit(t.Context(), "s1", "q4"); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(st.afters, 0) {
				t.Fatalf("read the session from %v, never from the start", st.afters)
			}
			if got := pb.Requests(); !reflect.DeepEqual(got[0].Messages, ref[0].Messages) {
				t.Fatalf("rebuilt:\n%s\nfrom the whole log:\n%s", contents(got[0].Messages), contents(ref[0].Messages))
			}
			after, err := st.Load(t.Context(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(after[:len(before)], before) {
				t.Fatal("stored events changed")
			}
			warned := false
			for _, ev := range after[len(before):] {
				if w, ok := ev.Payload.(event.WarningPayload); ok && w.Kind == "snapshot" && strings.Contains(w.Message, "session s1") &&
					strings.Contains(w.Message, "rebuilt from the events") {
					warned = true
				}
			}
			if !warned {
				t.Errorf("no Warning said the snapshot was set aside: %v", types(after[len(before):]))
			}
		})
	}
}

func mustEncode(t *testing.T, st *state) []byte {
	t.Helper()
	data, err := st.encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSessionHeldByAnotherProcess: a turn of a session another live process
// holds is refused, naming the session and the holder, and records nothing.
func TestSessionHeldByAnotherProcess(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	if err := st.Append(t.Context(), event.Event{Seq: 1, Type: event.UserMessage, SessionID: "s1", Time: epoch,
		Payload: event.UserMessagePayload{Text: "avant"}}); err != nil {
		t.Fatal(err)
	}
	other, err := storage.OpenSQLite(t.Context(), storage.SQLiteConfig{Path: filepath.Join(dir, "moteur.db"), Host: "elsewhere.invalid", PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lease, err := other.Acquire(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release()
	e, p := storeEngine(t, st, []scripted.Step{{Text: "jamais"}}, nil, nil)
	err = e.Submit(t.Context(), "s1", "q")
	if !errors.Is(err, storage.ErrInUse) || !strings.Contains(err.Error(), "s1") || !strings.Contains(err.Error(), "elsewhere.invalid") {
		t.Fatalf("Submit on a session another process holds: %v", err)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	evs, err := st.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("%d events stored, want the 1 from before", len(evs))
	}
}

// TestUnknownSessionsKeepNothing: asking the points of sessions the store
// does not have answers nil and leaves nothing in the engine's memory.
func TestUnknownSessionsKeepNothing(t *testing.T) {
	st := openStore(t, t.TempDir())
	e, _ := storeEngine(t, st, nil, nil, nil)
	for i := range 3 {
		id := fmt.Sprintf("ghost-%d", i)
		if pts := e.RewindPoints(id); pts != nil {
			t.Fatalf("points of %s: %v", id, pts)
		}
		if _, err := e.RewindPlan(id, 1); !errors.Is(err, ErrUnknownSession) {
			t.Fatalf("plan of %s: %v", id, err)
		}
	}
	e.sessMu.Lock()
	n := len(e.sessions)
	e.sessMu.Unlock()
	if n != 0 {
		t.Fatalf("%d sessions kept for unknown ids", n)
	}
}

// TestSnapshotOfVersion2StillContinues: a snapshot an earlier version
// wrote (version 2: the rewind points inside the state's JSON) is read as
// it is, with no warning: the engine reads the events after it alone, and
// sends what a replay of the whole log sends.
func TestSnapshotOfVersion2StillContinues(t *testing.T) {
	ref, st, snap, good := storedSnapshot(t)
	j := stateJSON{Session: good.id, Seq: good.seq, Last: good.last, PermSeq: good.permSeq, Remote: good.remote,
		Sensitive: good.sensitive, Note: good.note, History: good.history, Rewind: good.rewind.Data(),
		PointLen: good.pointLen, Prompts: good.prompts, CompactedAt: good.compactedAt, Scale: good.scale,
		LastUsage: good.lastUsage, UsageAt: good.usageAt, Aliases: good.aliases.Refs()}
	if len(j.Rewind.Points) == 0 {
		t.Fatal("the session has no rewind points to keep")
	}
	raw, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	snap.Data = append([]byte(`{"v":2,"sha256":"`+hex.EncodeToString(sum[:])+"\"}\n"), raw...)
	if err := st.SaveSnapshot(t.Context(), "s1", snap); err != nil {
		t.Fatal(err)
	}
	before, err := st.Load(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	after := continueFromSnapshot(t, st, snap, ref, "a version 2 snapshot")
	for _, ev := range after[len(before):] {
		if w, ok := ev.Payload.(event.WarningPayload); ok && w.Kind == "snapshot" {
			t.Fatalf("a version 2 snapshot was set aside: %s", w.Message)
		}
	}
}

// storedSnapshot runs the turns of snapshotSession in a new store and
// returns the requests a replay of the whole log sends (ref), the store
// (recording what the engine reads), its latest snapshot and that
// snapshot's state.
func storedSnapshot(t *testing.T) ([]llm.Request, *recordingStore, storage.Snapshot, *state) {
	t.Helper()
	dir := t.TempDir()
	ref := snapshotSession(t, dir)
	st := &recordingStore{SQLite: openStore(t, dir)}
	snap, _, err := st.LatestSnapshot(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	good, err := decodeState("s1", snap.Seq, snap.Data)
	if err != nil {
		t.Fatal(err)
	}
	return ref, st, snap, good
}
