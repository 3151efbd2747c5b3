package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// looper is a provider that calls a tool for rounds rounds, then answers;
// a request without tools allowed (a summary) gets a short summary. It
// records every request.
type looper struct {
	mu      sync.Mutex
	rounds  int
	calls   int
	reqs    []llm.Request
	failFor int // answer the first failFor round requests with a context overflow
}

func (l *looper) Name() string  { return "looper" }
func (l *looper) Model() string { return "looper-1" }
func (l *looper) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, req)
	if req.ToolChoice == llm.ToolChoiceNone {
		return llm.Response{Text: "Goal: read the log. Done: chunks read.", Finish: llm.FinishStop}, nil
	}
	if l.failFor > 0 {
		l.failFor--
		return llm.Response{}, &provider.Error{Provider: "looper", Kind: provider.ContextOverflow, Status: 400, Message: "maximum context length exceeded"}
	}
	if l.calls >= l.rounds {
		return llm.Response{Text: "fini", Finish: llm.FinishStop}, nil
	}
	l.calls++
	return llm.Response{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("c%d", l.calls), Name: "chunk", Arguments: `{}`}},
		Finish: llm.FinishToolCalls}, nil
}

func chunkTool() tools.Tool {
	return &fakeTool{name: "chunk", concurrent: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: strings.Repeat("ligne de journal sans intérêt particulier ", 40)}, nil
	}}
}

const longRounds = 500

func TestLongSessionStaysUnderTheWindow(t *testing.T) {
	const window = 4000
	l := &looper{rounds: longRounds}
	h := newHarness(t, nil, []tools.Tool{chunkTool()}, func(d *Deps) {
		d.Provider, d.ContextWindow, d.MaxIterations = l, window, 600
	})
	// More events than a subscription buffers: keep reading.
	go func() {
		for range h.events {
		}
	}()
	if err := h.submit("Lis tout le journal."); err != nil {
		t.Fatal(err)
	}
	est := compaction.NewEstimator()
	for i, r := range l.reqs {
		if err := llm.ValidatePairing(r.Messages); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if n := est.Messages(r.Messages); n > window {
			t.Fatalf("request %d is %d tokens, over the %d window", i, n, window)
		}
	}
	evs := h.sink.all()
	n := countType(evs, event.ContextCompacted)
	if n < 5 {
		t.Errorf("%d compactions over 500 rounds", n)
	}
	if tc := completed(t, evs); tc.Answer != "fini" || tc.Rounds != longRounds+1 {
		t.Errorf("TurnCompleted = %+v", tc)
	}
	// A restored session sends what the live one would.
	r := newHarness(t, []scripted.Step{{Text: "x"}}, []tools.Tool{chunkTool()}, func(d *Deps) { d.ContextWindow = window })
	if err := r.e.Restore("s1", evs); err != nil {
		t.Fatal(err)
	}
	live := h.e.existing("s1").st.messages()
	restored := r.e.existing("s1").st.messages()
	if fmt.Sprint(contents(live)) != fmt.Sprint(contents(restored)) {
		t.Errorf("restored history (%d messages) differs from the live one (%d)", len(restored), len(live))
	}
}

func TestContextOverflowForcesOneCompactionAndRetry(t *testing.T) {
	l := &looper{rounds: 3}
	h := newHarness(t, nil, []tools.Tool{chunkTool()}, func(d *Deps) { d.Provider, d.ContextWindow = l, 3000 })
	if err := h.submit("q"); err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.failFor = 1
	l.calls, l.rounds = 0, 0
	l.mu.Unlock()
	if err := h.submit("encore"); err != nil {
		t.Fatalf("an overflow must be cured by a compaction: %v", err)
	}
	evs := h.drain()
	c := last[event.ContextCompactedPayload](t, evs, event.ContextCompacted)
	if c.Reason != compaction.ReasonOverflow || c.Replaced == 0 {
		t.Errorf("ContextCompacted = %+v", c)
	}
	if tc := completed(t, evs); tc.Answer != "fini" {
		t.Errorf("TurnCompleted = %+v", tc)
	}
}

func TestOverflowTwiceIsAnError(t *testing.T) {
	l := &looper{failFor: 5}
	h := newHarness(t, nil, nil, func(d *Deps) { d.Provider = l })
	if err := h.submit("q"); !provider.IsContextOverflow(err) {
		t.Errorf("Submit = %v, want the overflow once the forced compaction did not help", err)
	}
}

// retrievalTool is a tool whose results go stale between turns.
type retrievalTool struct{ *fakeTool }

func (retrievalTool) Retrieval() bool { return true }

func TestEarlierRetrievalResultsAreSentAsAPlaceholder(t *testing.T) {
	kb := retrievalTool{&fakeTool{name: "search_knowledge", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "clause 4 : préavis de trois mois"}, nil
	}}}
	steps := []scripted.Step{scripted.Call("k1", "search_knowledge", `{}`), {Text: "trois mois"}, scripted.Call("k2", "search_knowledge", `{}`), {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{kb}, nil)
	for _, q := range []string{"préavis ?", "et la clause 5 ?"} {
		if err := h.submit(q); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.p.Requests()
	byCall := func(r llm.Request, id string) string {
		for _, m := range r.Messages {
			if m.ToolCallID == id {
				return m.Content
			}
		}
		return ""
	}
	if got := byCall(reqs[1], "k1"); got != "clause 4 : préavis de trois mois" {
		t.Errorf("within its turn the result is sent whole, got %q", got)
	}
	if got := byCall(reqs[3], "k1"); got != staleRetrieval {
		t.Errorf("in a later turn the result must be the placeholder, got %q", got)
	}
	if got := byCall(reqs[3], "k2"); got != "clause 4 : préavis de trois mois" {
		t.Errorf("the current turn's result must be whole, got %q", got)
	}
	if h.e.existing("s1").st.messages()[2].Content == staleRetrieval {
		t.Error("the stored history must keep the result: only what is sent changes")
	}
}

// TestOtherResultsOfEarlierTurnsAreSentWhole: the placeholder is for the
// tools that say their results go stale; another tool's stay as they were.
func TestOtherResultsOfEarlierTurnsAreSentWhole(t *testing.T) {
	calc := &fakeTool{name: "search_knowledge", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "42"}, nil
	}}
	steps := []scripted.Step{scripted.Call("k1", "search_knowledge", `{}`), {Text: "42"}, {Text: "ok"}}
	h := newHarness(t, steps, []tools.Tool{calc}, nil)
	for _, q := range []string{"combien ?", "sûr ?"} {
		if err := h.submit(q); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	found := false
	for _, m := range reqs[2].Messages {
		if m.ToolCallID == "k1" {
			found = true
			if m.Content != "42" {
				t.Errorf("a result of a tool that does not go stale became %q", m.Content)
			}
		}
	}
	if !found {
		t.Error("the earlier turn's result is not in the later request")
	}
}

// TestOversizedResultIsCutWhenSent: one result larger than the whole window
// cannot be summarised away (it is this turn's); it is cut in what is sent,
// never in the history.
func TestOversizedResultIsCutWhenSent(t *testing.T) {
	const window = 4000
	huge := strings.Repeat("une ligne très longue du journal applicatif ", 2000) // ~20k tokens
	big := &fakeTool{name: "dump", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: huge}, nil
	}}
	steps := []scripted.Step{scripted.Call("d1", "dump", `{}`), {Text: "vu"}}
	h := newHarness(t, steps, nil, func(d *Deps) {
		d.ContextWindow = window
		d.Tools = tools.NewRegistry(tools.Config{MaxOutput: 1 << 20})
		_ = d.Tools.Register(big)
	})
	if err := h.submit("montre le journal"); err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	est := compaction.NewEstimator()
	final := reqs[len(reqs)-1]
	if n := est.Messages(final.Messages); n > window {
		t.Errorf("the request after the oversized result is %d tokens for a %d window", n, window)
	}
	kept := false
	for _, m := range h.e.existing("s1").st.messages() {
		kept = kept || m.Content == huge
	}
	if !kept {
		t.Error("the stored history must keep the whole result")
	}
}
