package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/moteur/moteur/effect"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools"
)

// withTools runs a round whose response called tools: record the assistant
// message, run the calls, record each result (seed 000: Act, Observe).
func (t *turn) withTools(ctx context.Context, resp llm.Response) (outcome, bool) {
	t.lastNoTool, t.repeats, t.emptyRetries, t.extra = "", 0, 0, nil
	t.round++
	resp.ToolCalls = normalizeCallIDs(resp.ToolCalls, t.round)
	t.record(resp, false, false)
	if t.auditErr != nil {
		return outcome{}, true
	}
	if resp.Finish == llm.FinishLength {
		t.refuseCut(resp.ToolCalls)
	} else {
		// A PreToolUse hook may change a call's arguments: the recorded
		// message keeps what the model asked for.
		calls := slices.Clone(resp.ToolCalls)
		t.act(ctx, calls, t.authorize(ctx, calls))
	}
	// Each result was recorded as its call ended; with the last of them
	// the state put them all in the history, in call order.
	t.haveResults = true
	return outcome{}, t.auditErr != nil
}

// normalizeCallIDs gives every call a non-empty id, unique in the response,
// since results are paired with calls by id.
func normalizeCallIDs(calls []llm.ToolCall, round int) []llm.ToolCall {
	out := make([]llm.ToolCall, len(calls))
	// A round has a few calls: scanning those before costs less than a
	// map made for each round; a response with many calls gets the map,
	// so that it stays linear.
	var seen map[string]bool
	if len(calls) > maxScannedCalls {
		seen = make(map[string]bool, len(calls))
	}
	for i, c := range calls {
		dup := seen[c.ID]
		if seen == nil {
			dup = seenID(out[:i], c.ID)
		}
		if c.ID == "" || dup {
			c.ID = fmt.Sprintf("call_r%d_%d", round, i)
		}
		if seen != nil {
			seen[c.ID] = true
		}
		out[i] = c
	}
	return out
}

// maxScannedCalls is the most calls normalizeCallIDs checks by scanning.
const maxScannedCalls = 16

// seenID reports whether one of calls has that id.
func seenID(calls []llm.ToolCall, id string) bool {
	for _, c := range calls {
		if c.ID == id {
			return true
		}
	}
	return false
}

// refuseCut answers calls whose arguments the output limit cut off: running
// them would act on half an instruction.
func (t *turn) refuseCut(calls []llm.ToolCall) {
	for _, c := range calls {
		t.emitResult(c, tools.Result{IsError: true, Content: "The call was cut off by the output limit before its arguments were complete, so it was not run. " +
			"Make smaller calls (for example, write a large file in several parts).\n" + i18n.AnalyzeErrorSuffix}, 0)
	}
}

type callDone struct {
	i   int
	res tools.Result
	dur time.Duration
}

// act runs the calls of one round. Consecutive concurrent-safe calls run in
// parallel (at most MaxParallelTools at once); a call that is not
// concurrent-safe waits for those before it and holds back those after it.
// Each result is recorded as soon as its call ends (refusals in call
// order); the state puts them in the history in call order once all are
// in. A failing call cancels none of the others.
func (t *turn) act(ctx context.Context, calls []llm.ToolCall, grants []grant) {
	if t.auditErr != nil {
		return
	}
	done := make(chan callDone, len(calls))
	var sem chan struct{}
	if limit := t.e.deps.MaxParallelTools; limit < len(calls) {
		// Fewer calls than the bound never need a slot.
		sem = make(chan struct{}, limit)
	}
	// The session's alias table is the same for every call of the round:
	// one context carries it to all of them.
	rctx := cite.WithTable(ctx, t.conv().aliases)
	running := 0
	drain := func() {
		for ; running > 0; running-- {
			d := <-done
			t.emitResult(calls[d.i], d.res, d.dur)
		}
	}
	for i, c := range calls {
		if t.auditErr != nil {
			// A result could not be recorded: nothing more runs that the
			// audit log could not record either.
			break
		}
		if !grants[i].allowed {
			t.emitResult(c, tools.Result{IsError: true, Content: grants[i].refusal}, 0)
			continue
		}
		serial := !t.concurrent(c)
		if serial {
			drain()
		}
		running++
		cctx := rctx
		if grants[i].network {
			cctx = tools.WithNetwork(rctx)
		}
		callWorkers.run(func() { t.runCall(cctx, i, c, sem, done) })
		if serial {
			drain()
		}
	}
	drain()
}

func (t *turn) concurrent(c llm.ToolCall) bool {
	tool, ok := t.lookup(c.Name)
	// An unknown tool only produces an error result: it cannot conflict.
	return !ok || tool.Concurrent()
}

func (t *turn) runCall(ctx context.Context, i int, c llm.ToolCall, sem chan struct{}, done chan<- callDone) {
	if sem != nil {
		sem <- struct{}{}
		defer func() { <-sem }()
	}
	if err := ctx.Err(); err != nil {
		// Cancelled before this call's turn to run (it waited behind a
		// serial call, or for a slot): a tool that ignores its context
		// would act while its result says it was cut short, so it is
		// not started at all.
		done <- callDone{i: i, res: tools.Result{IsError: true,
			Content: fmt.Sprintf("tool %s not run: the turn was cancelled before it started (%v)", c.Name, context.Cause(ctx))}}
		return
	}
	start := t.e.now()
	ctx = tools.WithCall(ctx, tools.CallInfo{Session: t.s.id, CallID: c.ID})
	if t.s.sensitive() {
		// A tool that sends on its own (a web search) must keep a
		// sensitive session's text to local receivers, as the routing
		// does for the model requests.
		ctx = policy.WithSensitive(ctx)
	}
	ctx, finished := t.progress(ctx, c)
	res := t.execute(ctx, c)
	finished()
	res = t.postToolUse(ctx, c, res)
	done <- callDone{i: i, res: res, dur: t.e.now().Sub(start)}
}

// progress gives the call's context a progress reporter: what the tool
// says of how far it got (an MCP server's notifications) becomes an
// ephemeral ToolProgress event, masked, until finished is called — a
// notification that arrives after the result is dropped.
func (t *turn) progress(ctx context.Context, c llm.ToolCall) (_ context.Context, finished func()) {
	g := &progressGate{t: t, c: c, round: t.round}
	return tools.WithProgress(ctx, g.report), g.finish
}

// progressGate turns one call's progress reports into events until the
// call is finished; one allocation holds what the reporter needs.
type progressGate struct {
	t     *turn
	c     llm.ToolCall
	round int
	over  atomic.Bool
}

func (g *progressGate) report(p tools.Progress) {
	if g.over.Load() {
		return
	}
	ev := event.MaskEvent(event.Event{Type: event.ToolProgress, Payload: event.ToolProgressPayload{
		CallID: g.c.ID, Name: g.c.Name, Message: p.Message, Done: p.Done, Total: p.Total, Round: g.round}})
	_, _ = g.t.e.emit(g.t.s, event.ToolProgress, ev.Payload)
}

func (g *progressGate) finish() { g.over.Store(true) }

// emitResult records a call's result; the state keeps it as recorded,
// secrets masked: that is what the model reads back.
func (t *turn) emitResult(c llm.ToolCall, r tools.Result, dur time.Duration) {
	_, err := t.emit(event.ToolResult, event.ToolResultPayload{
		CallID: c.ID, Name: c.Name, Content: r.Content, IsError: r.IsError, Display: r.Display,
		Truncated: r.Truncated, DurationMS: dur.Milliseconds(), Round: t.round, Risk: string(t.risk(c)),
		Changes: r.Changes, NotUndoable: r.NotUndoable, References: r.References, Attachments: r.Attachments,
	})
	if err != nil {
		return
	}
	// The source is named only when a check may record it.
	if t.classifies() {
		t.classify(r.Content, "tool "+c.Name)
	}
	if r.Classified != "" {
		t.classifiedResult(r.Classified, "tool "+c.Name)
	}
	t.truncated = t.truncated || r.Truncated
}

// risk is a call's risk class: the tool's own, or what it says of these
// arguments; an unknown tool runs nothing, so it reads. It is assessed
// once per call, before the call runs: what the call does can change the
// answer (a shell `> f` overwrites an existing file only once f exists),
// and its result must record the class it was authorised as.
func (t *turn) risk(c llm.ToolCall) effect.Risk {
	key := riskKey{c.ID, c.Name, c.Arguments} // no concatenation: nothing to allocate
	if r, ok := t.risks[key]; ok {
		return r
	}
	r := t.assess(c)
	if t.risks == nil {
		t.risks = make(map[riskKey]effect.Risk, 8) // a round's calls, without regrowing
	}
	t.risks[key] = r
	return r
}

// riskKey identifies a call for risk: its id, name and arguments.
type riskKey struct{ id, name, args string }

func (t *turn) assess(c llm.ToolCall) effect.Risk {
	tool, ok := t.lookup(c.Name)
	if !ok {
		return effect.RiskRead
	}
	if ra, ok := tool.(tools.RiskAssessor); ok {
		return ra.RiskOf(json.RawMessage(c.Arguments))
	}
	return tool.Risk()
}

// mustConfirm is why the call needs the user's confirmation in every mode,
// as its tool says (tools.Confirmer), or "".
func (t *turn) mustConfirm(c llm.ToolCall) string {
	tool, ok := t.lookup(c.Name)
	if !ok {
		return ""
	}
	if cf, ok := tool.(tools.Confirmer); ok {
		return cf.MustConfirm(json.RawMessage(c.Arguments))
	}
	return ""
}
