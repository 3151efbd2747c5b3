package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/moteur/moteur/compaction"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
)

// longAnswer is an answer large enough that, with compactWindow, a
// compaction frees most of the history, in few words: the scripted
// provider streams one delta a word, and a turn's must fit a
// subscription's buffer.
var longAnswer = strings.Repeat("Le-module-lit-la-configuration,-puis-ouvre-le-journal-et-le-parcourt. ", 60)

// compactWindow makes a forced compaction keep about 500 tokens verbatim:
// two long answers are summarised, a short last turn is kept.
const compactWindow = 4000

// compactSteps are two long turns, a short one, the summary, and the turn
// after the compaction.
func compactSteps() []scripted.Step {
	return []scripted.Step{
		{Text: "A1 " + longAnswer}, {Text: "A2 " + longAnswer}, {Text: "court"},
		{Text: "RÉSUMÉ : le journal a été lu."},
		{Text: "suite"},
	}
}

// compactHarness runs the first three turns of compactSteps.
func compactHarness(t *testing.T, tweak func(*Deps)) *harness {
	t.Helper()
	h := newHarness(t, compactSteps(), nil, func(d *Deps) {
		d.ContextWindow = compactWindow
		if tweak != nil {
			tweak(d)
		}
	})
	for _, q := range []string{"q1", "q2", "q3"} {
		if err := h.submit(q); err != nil {
			t.Fatal(err)
		}
		h.drain() // a long answer streams more deltas than a subscription buffers
	}
	if n := countType(h.sink.all(), event.ContextCompacted); n != 0 {
		t.Fatalf("the turns compacted already (%d): the test's window is too small", n)
	}
	return h
}

func TestCompactSummarisesTheHistoryBetweenTurns(t *testing.T) {
	h := compactHarness(t, nil)
	before := len(h.sink.all())
	res, err := h.e.Compact(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.p.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests after Compact, want the 3 turns' and one summary", len(reqs))
	}
	if sum := reqs[3]; sum.ToolChoice != llm.ToolChoiceNone || !sum.NoThinking {
		t.Errorf("the compaction's request is not a summary request: tool choice %q, no thinking %v", sum.ToolChoice, sum.NoThinking)
	}
	added := h.sink.all()[before:]
	if got := types(added); !reflect.DeepEqual(got, []event.Type{event.ContextCompacted}) {
		t.Fatalf("Compact recorded %v, want one ContextCompacted", got)
	}
	c := added[0].Payload.(event.ContextCompactedPayload)
	if c.Reason != event.CompactManual || c.Replaced != 4 || !strings.Contains(c.Summary, "RÉSUMÉ") {
		t.Errorf("ContextCompacted = %+v, want reason manual replacing the two long turns", c)
	}
	if res.Replaced != c.Replaced || res.TokensBefore != c.TokensBefore || res.TokensAfter != c.TokensAfter || res.TokensAfter >= res.TokensBefore {
		t.Errorf("CompactResult %+v does not match the event %+v", res, c)
	}
	if got := types(h.drain()); !reflect.DeepEqual(got, []event.Type{event.ContextCompacted}) {
		t.Errorf("subscribers got %v, want the ContextCompacted (the summary is not streamed)", got)
	}

	if err := h.submit("q4"); err != nil {
		t.Fatal(err)
	}
	next := contents(h.p.Requests()[4].Messages)
	want := []string{"system:SYSTEM", "user:" + compaction.SummaryMessage(c.Summary).Content,
		"user:q3", "assistant:court", "user:q4"}
	if !reflect.DeepEqual(next, want) {
		t.Errorf("the next turn sent\n%q\nwant the summary instead of the old messages\n%q", next, want)
	}
}

func TestCompactDuringATurnIsRefused(t *testing.T) {
	hold, reached := make(chan struct{}), make(chan struct{})
	h := newHarness(t, []scripted.Step{{Text: "a1", Await: hold, Reached: reached}}, nil,
		func(d *Deps) { d.ContextWindow = compactWindow })
	done := make(chan error, 1)
	go func() { done <- h.submit("q1") }()
	<-reached // the turn's request is with the provider: the turn runs
	_, err := h.e.Compact(context.Background(), "s1")
	close(hold)
	if !errors.Is(err, ErrTurnInProgress) {
		t.Errorf("Compact during a turn = %v, want ErrTurnInProgress", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests, want the turn's only", n)
	}
	if n := countType(h.sink.all(), event.ContextCompacted); n != 0 {
		t.Errorf("%d compactions recorded", n)
	}
}

func TestCompactOfATinyHistoryDoesNothing(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "a1"}}, nil, func(d *Deps) {
		// A PreCompact hook would record its run: it must not run.
		d.Hooks = hookSet(t, "PreCompact", "", "echo ran")
	})
	if _, err := h.e.Compact(context.Background(), "s1"); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("Compact of a session without events = %v, want ErrUnknownSession", err)
	}
	if err := h.submit("q1"); err != nil {
		t.Fatal(err)
	}
	before := len(h.sink.all())
	_, err := h.e.Compact(context.Background(), "s1")
	if !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("Compact of one short turn = %v, want ErrNothingToCompact", err)
	}
	if added := h.sink.all()[before:]; len(added) != 0 {
		t.Errorf("Compact recorded %v, want nothing", types(added))
	}
	if n := len(h.p.Requests()); n != 1 {
		t.Errorf("%d requests, want the turn's only", n)
	}
}

// TestCompactRunsPreCompactAsManual: the PreCompact hooks matching the
// trigger "manual" run, those of "auto" do not.
func TestCompactRunsPreCompactAsManual(t *testing.T) {
	for matcher, want := range map[string]int{"manual": 1, "auto": 0} {
		h := compactHarness(t, func(d *Deps) {
			d.Hooks = hookSet(t, "PreCompact", matcher, "echo ran")
		})
		if _, err := h.e.Compact(context.Background(), "s1"); err != nil {
			t.Fatal(err)
		}
		evs := persisted(h.drain())
		if started, completed := hookEvents(evs); started != want || completed != want {
			t.Errorf("matcher %q: hook events %v, want %d run", matcher, types(evs), want)
		}
		if c := last[event.ContextCompactedPayload](t, evs, event.ContextCompacted); c.Reason != event.CompactManual {
			t.Errorf("matcher %q: reason %q", matcher, c.Reason)
		}
	}
}

// TestCompactIsRestored: the log of a manual compaction rebuilds the
// state the live engine has, and a session restored from it sends the
// same history; a restored session compacts too, recording its opening
// first.
func TestCompactIsRestored(t *testing.T) {
	h := compactHarness(t, nil)
	pre := h.sink.all()
	if _, err := h.e.Compact(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	log := h.sink.all()
	sameState(t, "after Compact", h.e.existing("s1").st, mustReplay(t, log))

	r := newHarness(t, nil, nil, func(d *Deps) { d.ContextWindow = compactWindow })
	if err := r.e.Restore("s1", log); err != nil {
		t.Fatal(err)
	}
	live, back := contents(h.e.existing("s1").st.messages()), contents(r.e.existing("s1").st.messages())
	if !reflect.DeepEqual(live, back) {
		t.Errorf("restored history\n%q\ndiffers from the live one\n%q", back, live)
	}

	// Compacted in another process from the stored events before it.
	o := newHarness(t, []scripted.Step{{Text: "RÉSUMÉ"}}, nil, func(d *Deps) { d.ContextWindow = compactWindow })
	if err := o.e.Restore("s1", pre); err != nil {
		t.Fatal(err)
	}
	if _, err := o.e.Compact(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	added := o.sink.all()
	if got := types(added); len(got) < 2 || got[0] != event.SessionStarted || got[len(got)-1] != event.ContextCompacted {
		t.Errorf("the restored session recorded %v, want its SessionStarted then the ContextCompacted", got)
	}
	if got := fmt.Sprint(contents(o.e.existing("s1").st.messages())[1:]); got != fmt.Sprint([]string{"user:q3", "assistant:court"}) {
		t.Errorf("after the compaction the history is %s", got)
	}
}
