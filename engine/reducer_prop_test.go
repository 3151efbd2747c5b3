package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/routing"
	storage "github.com/moteur/moteur/session"
	"github.com/moteur/moteur/tools"
)

// memStore is a session store in memory for the property test: a sink,
// the events read back, and snapshots. (The real back ends are tested on
// SQLite in store_test.go; this one keeps a hundred sessions fast.)
type memStore struct {
	mu    sync.Mutex
	evs   []event.Event
	snaps []storage.Snapshot
}

func (m *memStore) Write(_ context.Context, e event.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if want := uint64(len(m.evs)) + 1; e.Seq != want {
		return fmt.Errorf("seq %d, want %d", e.Seq, want)
	}
	m.evs = append(m.evs, e)
	return nil
}

func (m *memStore) LoadFrom(_ context.Context, id string, after uint64) ([]event.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.evs) == 0 {
		return nil, fmt.Errorf("session %s: %w", id, storage.ErrNotFound)
	}
	if after >= uint64(len(m.evs)) {
		return nil, nil
	}
	return append([]event.Event(nil), m.evs[after:]...), nil
}

func (m *memStore) SaveSnapshot(_ context.Context, _ string, s storage.Snapshot) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.snaps = append(m.snaps, s)
	return nil
}

func (m *memStore) LatestSnapshot(context.Context, string) (storage.Snapshot, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.snaps) == 0 {
		return storage.Snapshot{}, false, nil
	}
	return m.snaps[len(m.snaps)-1], true, nil
}

func (m *memStore) all() []event.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]event.Event(nil), m.evs...)
}

// plan drives a random session: how many tool rounds each turn has, which
// calls each round makes. It is shared by the remote and the local
// provider, so that the script goes on whichever one the router picks.
type plan struct {
	mu     sync.Mutex
	rng    *rand.Rand
	rounds int // tool rounds left in this turn
	calls  int
	reqs   []llm.Request
}

// planProvider answers from the plan; summaries and syntheses (no tools)
// get a short text.
type planProvider struct {
	name  string
	local bool
	p     *plan
}

func (pp *planProvider) Name() string  { return pp.name }
func (pp *planProvider) Model() string { return "m" }
func (pp *planProvider) Local() bool   { return pp.local }

func (pp *planProvider) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	p := pp.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = append(p.reqs, req)
	usage := &llm.Usage{PromptTokens: 100 + p.rng.IntN(50), CompletionTokens: 10}
	if req.ToolChoice == llm.ToolChoiceNone {
		return llm.Response{Text: "résumé de ce qui précède", Finish: llm.FinishStop, Usage: usage}, nil
	}
	if req.Messages[0].Content != "SYSTEM" {
		// A sub-agent: one round of calls, then its answer.
		if toolRounds(req) > 0 {
			return llm.Response{Text: fmt.Sprintf("sous-réponse %d", p.rng.IntN(1000)), Finish: llm.FinishStop, Usage: usage}, nil
		}
		p.calls++
		name := []string{"echo", "write", "marked"}[p.rng.IntN(3)]
		return llm.Response{Finish: llm.FinishToolCalls, Usage: usage, ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", p.calls),
			Name: name, Arguments: fmt.Sprintf(`{"q":"f%d.txt"}`, p.rng.IntN(3))}}}, nil
	}
	if p.rounds <= 0 {
		return llm.Response{Text: fmt.Sprintf("réponse %d", p.rng.IntN(1000)), Finish: llm.FinishStop, Usage: usage}, nil
	}
	p.rounds--
	n := 1 + p.rng.IntN(3)
	resp := llm.Response{Finish: llm.FinishToolCalls, Usage: usage}
	for range n {
		p.calls++
		name := []string{"echo", "echo", "write", "marked", "agent"}[p.rng.IntN(5)]
		args := fmt.Sprintf(`{"q":"f%d.txt"}`, p.rng.IntN(3))
		if name == "agent" {
			args = fmt.Sprintf(`{"description":"d","prompt":"sous-tâche %d","subagent_type":"general-purpose"}`, p.calls)
		}
		resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("c%d", p.calls), Name: name, Arguments: args})
	}
	return resp, nil
}

func (p *plan) turn(rounds int) {
	p.mu.Lock()
	p.rounds = rounds
	p.mu.Unlock()
}

// propTools: a large read (compaction comes quickly), a write that
// records a change (rewind state), and a tool whose output carries a
// classification marking (the session turns sensitive).
func propTools(rng *rand.Rand) []tools.Tool {
	var mu sync.Mutex
	intn := func(n int) int {
		mu.Lock()
		defer mu.Unlock()
		return rng.IntN(n)
	}
	return []tools.Tool{
		&fakeTool{name: "echo", concurrent: true, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			return tools.Result{Content: strings.Repeat("ligne du journal "+string(args)+" ", 40+intn(80))}, nil
		}},
		&fakeTool{name: "write", risk: effect.RiskWrite, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
			var a struct{ Q string }
			_ = json.Unmarshal(args, &a)
			return tools.Result{Content: "écrit " + a.Q, Changes: []effect.Change{{Path: a.Q, After: fmt.Sprintf("%064x", intn(1<<30))}}}, nil
		}},
		&fakeTool{name: "marked", concurrent: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
			if intn(4) == 0 {
				return tools.Result{Content: "NOTE DIFFUSION RESTREINTE : budget"}, nil
			}
			return tools.Result{Content: "rien de marqué"}, nil
		}},
	}
}

// TestLiveStateIsTheReducedEvents: over random sessions (parallel calls,
// compaction, approvals answered or refused, classification that moves the
// session to the local provider, rewinds of each mode), the live state
// after each turn and each rewind equals the state rebuilt from the stored
// events, and the state rebuilt from the latest snapshot and the events
// after it; and a log cut anywhere (a crash) continues with every call
// answered.
func TestLiveStateIsTheReducedEvents(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	seen := map[string]int{}
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { propSession(t, uint64(seed), seen) })
	}
	// The sessions went through what the test is about.
	for _, what := range []string{"ContextCompacted", "Rewound code", "Rewound conversation", "Rewound both",
		"SessionClassified", "ProviderSelected", "allowed", "refused", "parallel calls", "crash with calls left",
		"sub-agent", "sub-agent approval"} {
		if seen[what] == 0 {
			t.Errorf("no session had %s", what)
		}
	}
	t.Logf("seen: %v", seen)
}

// tally counts what a session's events went through.
func tally(evs []event.Event, seen map[string]int) {
	for _, ev := range evs {
		if ev.ParentCallID != "" {
			seen["sub-agent"]++
			if ev.Type == event.PermissionRequested {
				seen["sub-agent approval"]++
			}
		}
		switch p := ev.Payload.(type) {
		case event.RewoundPayload:
			seen["Rewound "+p.Mode]++
		case event.PermissionResolvedPayload:
			if p.Allow {
				seen["allowed"]++
			} else {
				seen["refused"]++
			}
		case event.AssistantMessagePayload:
			if len(p.ToolCalls) > 1 {
				seen["parallel calls"]++
			}
		default:
			seen[string(ev.Type)]++
		}
	}
}

func propSession(t *testing.T, seed uint64, seen map[string]int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	pl := &plan{rng: rand.New(rand.NewPCG(seed, 8))}
	remote := &planProvider{name: "remote", p: pl}
	local := &planProvider{name: "local", local: true, p: pl}
	router, err := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: remote, Endpoint: "https://api.example/v1"}, {Provider: local, Local: true}}})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
	for _, tl := range propTools(rand.New(rand.NewPCG(seed, 9))) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	perms, err := policy.NewPermissions(policy.PermissionsConfig{Mode: policy.Confirm})
	if err != nil {
		t.Fatal(err)
	}
	st := &memStore{}
	cat, _ := agents.Load(agents.Config{})
	e, err := New(Deps{Provider: remote, Router: router, Tools: reg, Sinks: []event.Sink{st}, Store: st, Now: fixedClock(), Agents: cat,
		Permissions: perms, ContextWindow: 3000, SnapshotEvery: 1, ProjectRoot: t.TempDir(), SystemPrompt: "SYSTEM"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go answerRandomly(ctx, e, e.Subscribe(), rand.New(rand.NewPCG(seed, 10)))

	turns := 2 + rng.IntN(5)
	for i := range turns {
		pl.turn(rng.IntN(4))
		err := e.Submit(t.Context(), "s1", fmt.Sprintf("question %d : %s", i, strings.Repeat("détail ", rng.IntN(40))))
		if err != nil && !errors.Is(err, policy.ErrRefused) {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		checkReduced(t, e, st, fmt.Sprintf("after turn %d", i+1))
		if rng.IntN(3) == 0 {
			propRewind(t, e, rng)
			checkReduced(t, e, st, fmt.Sprintf("after the rewind following turn %d", i+1))
		}
	}
	for _, r := range pl.reqs {
		if err := llm.ValidatePairing(r.Messages); err != nil {
			t.Fatalf("a request breaks the pairing rule: %v", err)
		}
	}
	tally(st.all(), seen)
	if propCrash(t, st.all(), rng) {
		seen["crash with calls left"]++
	}
}

// answerRandomly answers every permission request: allowed, allowed for
// the session, or refused.
func answerRandomly(ctx context.Context, e *Engine, ch <-chan event.Event, rng *rand.Rand) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-ch:
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
				k := rng.IntN(3)
				_ = e.Respond(p.ID, Reply{Allow: k > 0, Remember: k == 2, Reason: "non"})
			}
		}
	}
}

func propRewind(t *testing.T, e *Engine, rng *rand.Rand) {
	points := e.RewindPoints("s1")
	if len(points) == 0 {
		return
	}
	to := points[rng.IntN(len(points))].Seq
	mode := []RewindMode{RewindCode, RewindConversation, RewindBoth}[rng.IntN(3)]
	plan, err := e.RewindPlan("s1", to)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Rewind(t.Context(), "s1", to, mode, plan, nil)
	if err != nil && !errors.Is(err, ErrConversationUnavailable) {
		t.Fatalf("rewind to %d (%s): %v", to, mode, err)
	}
}

// checkReduced compares the live state with the events rebuilt two ways.
func checkReduced(t *testing.T, e *Engine, st *memStore, when string) {
	t.Helper()
	evs := st.all()
	live := e.existing("s1").st
	sameState(t, when+": from the events", live, mustReplay(t, evs))
	snap, ok, _ := st.LatestSnapshot(t.Context(), "s1")
	if !ok {
		t.Fatalf("%s: no snapshot", when)
	}
	from, err := decodeState("s1", snap.Seq, snap.Data)
	if err != nil {
		t.Fatalf("%s: snapshot at %d: %v", when, snap.Seq, err)
	}
	if err := matches(from, evs[snap.Seq-1:]); err != nil {
		t.Fatalf("%s: snapshot at %d: %v", when, snap.Seq, err)
	}
	if _, err := replay(from, evs[snap.Seq:]); err != nil {
		t.Fatal(err)
	}
	sameState(t, fmt.Sprintf("%s: from the snapshot at %d and the tail", when, snap.Seq), live, from)
}

// propCrash cuts the log where a crash could (anywhere: every event is
// written alone) and continues it in a new engine: every call gets an
// answer, and the history the model reads pairs.
func propCrash(t *testing.T, evs []event.Event, rng *rand.Rand) (callsLeft bool) {
	cut := 1 + rng.IntN(len(evs))
	h := newHarness(t, nil, propTools(rng), func(d *Deps) {
		d.Provider = provider.Provider(&planProvider{name: "after", local: true, p: &plan{rng: rng}})
	})
	if err := h.e.Restore("s1", evs[:cut]); err != nil {
		t.Fatalf("restore the log cut at %d: %v", cut, err)
	}
	before := h.e.existing("s1").st.unanswered()
	if err := h.submit("on reprend"); err != nil && !errors.Is(err, policy.ErrRefused) {
		t.Fatalf("continue the log cut at %d: %v", cut, err)
	}
	synthetic := 0
	for _, ev := range h.sink.all() {
		if p, ok := ev.Payload.(event.ToolResultPayload); ok && p.Synthetic {
			synthetic++
		}
	}
	if synthetic != len(before) {
		t.Fatalf("log cut at %d: %d calls left unanswered, %d synthetic answers recorded", cut, len(before), synthetic)
	}
	if h.e.existing("s1").st.round != nil && len(h.e.existing("s1").st.unanswered()) > 0 {
		t.Fatalf("log cut at %d: calls still unanswered after the next turn", cut)
	}
	return len(before) > 0
}
