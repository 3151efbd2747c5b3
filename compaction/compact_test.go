package compaction

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/moteur/moteur/llm"
)

// recorder is a Summarizer that records its prompts.
type recorder struct {
	prompts [][]llm.Message
	answer  string
	err     error
}

func (r *recorder) summarize(_ context.Context, p []llm.Message) (string, error) {
	r.prompts = append(r.prompts, p)
	return r.answer, r.err
}

func (r *recorder) all() string {
	var b strings.Builder
	for _, p := range r.prompts {
		for _, m := range p {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}

func words(rng *rand.Rand, n int) string {
	vocab := []string{"alpha", "build", "config", "deploy", "error", "fichier", "goroutine", "handler", "index", "json"}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(vocab[rng.IntN(len(vocab))])
	}
	return b.String()
}

// randomHistory builds a valid history: user messages, plain answers, and
// assistant messages with 1–3 tool calls each followed by their results.
func randomHistory(rng *rand.Rand, n int) []llm.Message {
	var h []llm.Message
	id := 0
	h = append(h, llm.Message{Role: llm.RoleUser, Content: words(rng, 20)})
	for len(h) < n {
		switch rng.IntN(4) {
		case 0:
			h = append(h, llm.Message{Role: llm.RoleUser, Content: words(rng, 5+rng.IntN(100))})
		case 1:
			h = append(h, llm.Message{Role: llm.RoleAssistant, Content: words(rng, 5+rng.IntN(200))})
		default:
			k := rng.IntN(4) // 0 calls: an assistant message that only talks
			a := llm.Message{Role: llm.RoleAssistant, Content: words(rng, rng.IntN(20))}
			for range k {
				id++
				a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("c%d", id), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d.go"}`, id)})
			}
			h = append(h, a)
			for _, c := range a.ToolCalls {
				h = append(h, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: words(rng, 10+rng.IntN(600))})
			}
		}
	}
	return h
}

func checkInvariant(t *testing.T, old []llm.Message, res Result) {
	t.Helper()
	if err := llm.ValidatePairing(res.Messages); err != nil {
		t.Fatalf("pairing broken: %v", err)
	}
	if res.Skipped {
		if !reflect.DeepEqual(res.Messages, old) {
			t.Fatal("skipped but history changed")
		}
		return
	}
	want := append([]llm.Message{SummaryMessage(res.Summary)}, old[res.Replaced:]...)
	if !reflect.DeepEqual(res.Messages, want) {
		t.Fatalf("Messages != [SummaryMessage(Summary)] + old[%d:]", res.Replaced)
	}
	if res.TokensAfter >= res.TokensBefore {
		t.Fatalf("tokens %d → %d", res.TokensBefore, res.TokensAfter)
	}
}

func TestCompactProperty(t *testing.T) {
	est := NewEstimator()
	compacted := 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		c := New(Config{Window: 8000 + rng.IntN(20000), Estimator: est})
		h := randomHistory(rng, 20+rng.IntN(200))
		r := &recorder{answer: "## Goal\nsummary " + fmt.Sprint(seed)}
		if seed%5 == 0 {
			r = &recorder{err: errors.New("down")} // degraded path too
		}
		// Compact repeatedly, growing the history in between, so that
		// previous summaries are merged and split turns happen.
		for round := range 3 {
			res, err := c.Compact(context.Background(), h, r.summarize, round == 2)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			checkInvariant(t, h, res)
			if !res.Skipped {
				compacted++
			}
			h = append(res.Messages, randomHistory(rng, 30)...)
			// randomHistory reuses call ids; renumber to keep them unique.
			for i := len(res.Messages); i < len(h); i++ {
				for j := range h[i].ToolCalls {
					h[i].ToolCalls = append([]llm.ToolCall(nil), h[i].ToolCalls...)
					h[i].ToolCalls[j].ID = fmt.Sprintf("r%d-%s", round, h[i].ToolCalls[j].ID)
				}
				if h[i].Role == llm.RoleTool {
					h[i].ToolCallID = fmt.Sprintf("r%d-%s", round, h[i].ToolCallID)
				}
			}
			if err := llm.ValidatePairing(h); err != nil {
				t.Fatalf("test history invalid: %v", err)
			}
		}
	}
	if compacted < 60 {
		t.Errorf("only %d compactions happened; the property test is too weak", compacted)
	}
}

func bigTurn(rounds int) []llm.Message {
	rng := rand.New(rand.NewPCG(1, 2))
	h := []llm.Message{{Role: llm.RoleUser, Content: "Refactor the parser, please."}}
	for i := range rounds {
		id := fmt.Sprintf("t%d", i)
		h = append(h,
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"p%d.go"}`, i)}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "read_file", Content: words(rng, 400)})
	}
	return h
}

func TestCompactSplitTurn(t *testing.T) {
	h := bigTurn(40)
	c := New(Config{Window: 32000, KeepRecentTokens: 3000})
	r := &recorder{answer: "turn so far"}
	res, err := c.Compact(context.Background(), h, r.summarize, false)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, h, res)
	if res.Skipped || !res.SplitTurn {
		t.Fatalf("Skipped=%v SplitTurn=%v, want a split turn", res.Skipped, res.SplitTurn)
	}
	if h[res.Replaced].Role != llm.RoleAssistant {
		t.Errorf("cut at a %s message, want an assistant group boundary", h[res.Replaced].Role)
	}
	if len(r.prompts) != 1 || !strings.Contains(r.all(), "beginning of the current turn") || !strings.Contains(r.all(), "Refactor the parser") {
		t.Errorf("turn-prefix prompt missing: %d prompts", len(r.prompts))
	}
	if !strings.Contains(res.Summary, "Turn Context (split turn)") {
		t.Errorf("summary lacks the turn context: %q", res.Summary)
	}

	// With history before the turn, that history gets its own request.
	pre := append([]llm.Message{{Role: llm.RoleUser, Content: words(rand.New(rand.NewPCG(3, 3)), 1500)}, {Role: llm.RoleAssistant, Content: "done"}}, h...)
	r = &recorder{answer: "x"}
	res, err = c.Compact(context.Background(), pre, r.summarize, false)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, pre, res)
	if !res.SplitTurn || len(r.prompts) != 2 {
		t.Errorf("SplitTurn=%v prompts=%d, want split with 2 requests", res.SplitTurn, len(r.prompts))
	}
}

func TestCompactMergesPreviousSummary(t *testing.T) {
	prev := "PREVIOUS-SUMMARY-XYZ\n\n" + readOpen + "\nold.go\n" + readClose
	h := append([]llm.Message{SummaryMessage(prev)}, bigTurn(10)...)
	h = append(h, llm.Message{Role: llm.RoleAssistant, Content: "ok"}, llm.Message{Role: llm.RoleUser, Content: words(rand.New(rand.NewPCG(4, 4)), 2000)})
	c := New(Config{Window: 32000, KeepRecentTokens: 3000, SummaryTokens: 500})
	r := &recorder{answer: "NEW"}
	res, err := c.Compact(context.Background(), h, r.summarize, false)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, h, res)
	if res.Skipped {
		t.Fatalf("skipped: %s", res.Reason)
	}
	if !strings.Contains(r.all(), "PREVIOUS-SUMMARY-XYZ") || !strings.Contains(r.all(), "Merge it") {
		t.Error("the previous summary is not in the summarizer prompt")
	}
	if strings.Contains(r.prompts[0][1].Content, "<previous-summary>\nPREVIOUS-SUMMARY-XYZ\n\n<read-files>") {
		t.Error("the previous files section was not stripped from the prose")
	}
	for _, f := range []string{"old.go", "p0.go", "p1.go"} {
		if !strings.Contains(between(res.Summary, readOpen, readClose), f) {
			t.Errorf("files section lacks %s: %q", f, res.Summary)
		}
	}
	if res.Replaced < 1 {
		t.Error("the previous summary message was not replaced")
	}
	if !res.SplitTurn || len(r.prompts) != 1 || !strings.Contains(r.all(), "beginning of the current turn") {
		t.Errorf("SplitTurn=%v prompts=%d: want one merging request noting the split turn", res.SplitTurn, len(r.prompts))
	}
}

func TestCompactDegraded(t *testing.T) {
	h := bigTurn(30)
	h = append(h, llm.Message{Role: llm.RoleAssistant, Content: "done"}, llm.Message{Role: llm.RoleUser, Content: "next"})
	c := New(Config{Window: 32000, KeepRecentTokens: 500, SummaryTokens: 1000})
	r := &recorder{err: errors.New("provider down")}
	res, err := c.Compact(context.Background(), h, r.summarize, false)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, h, res)
	if !res.Degraded {
		t.Fatal("Degraded = false")
	}
	if len(r.prompts) != 2 {
		t.Errorf("summarizer called %d times, want 2", len(r.prompts))
	}
	if !strings.Contains(res.Summary, "provider down") || !strings.Contains(res.Summary, "oldest of the") {
		t.Errorf("no note of the omissions: %.300q", res.Summary)
	}
	prose := stripFiles(res.Summary)
	if n := c.est.Text(prose); n > 1100 {
		t.Errorf("archive = %d tokens, want about the summary budget 1000", n)
	}
}

func TestCompactCancelled(t *testing.T) {
	h := bigTurn(30)
	h = append(h, llm.Message{Role: llm.RoleUser, Content: "next"})
	c := New(Config{Window: 32000, KeepRecentTokens: 500})
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := c.Compact(ctx, h, func(ctx context.Context, _ []llm.Message) (string, error) {
		calls++
		cancel()
		return "", ctx.Err()
	}, false)
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("err=%v calls=%d, want context.Canceled after 1 call", err, calls)
	}
}

func TestCompactSkipped(t *testing.T) {
	c := New(Config{Window: 32000, KeepRecentTokens: 20000})
	r := &recorder{answer: "S"}
	// Nothing to compact: a single message.
	one := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	res, _ := c.Compact(context.Background(), one, r.summarize, false)
	if !res.Skipped || res.Reason != ReasonNothing {
		t.Errorf("single message: Skipped=%v Reason=%q", res.Skipped, res.Reason)
	}
	// Less than 5 % to gain: the old part is tiny next to the kept tail.
	rng := rand.New(rand.NewPCG(5, 5))
	h := []llm.Message{
		{Role: llm.RoleUser, Content: "short"}, {Role: llm.RoleAssistant, Content: "ok"},
		{Role: llm.RoleUser, Content: words(rng, 15000)},
	}
	res, err := c.Compact(context.Background(), h, r.summarize, false)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Skipped || res.Reason != ReasonLowGain || !reflect.DeepEqual(res.Messages, h) {
		t.Errorf("low gain: Skipped=%v Reason=%q", res.Skipped, res.Reason)
	}
	if len(r.prompts) != 0 {
		t.Error("summarizer called for a compaction that could not pay")
	}
}

func TestCompactFileOps(t *testing.T) {
	h := []llm.Message{
		{Role: llm.RoleUser, Content: "fix it"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "1", Name: "read_file", Arguments: `{"path":"src/a.go"}`},
			{ID: "2", Name: "edit_file", Arguments: `{"path":"src/b.go","old":"x","new":"y"}`},
			{ID: "3", Name: "write_file", Arguments: `{"file_path":"src/c.go"}`},
			{ID: "4", Name: "read_file", Arguments: `{not json`},
			{ID: "5", Name: "shell_exec", Arguments: `{"path":"nope.go"}`},
		}},
	}
	for _, id := range []string{"1", "2", "3", "4", "5"} {
		h = append(h, llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: "ok"})
	}
	h = append(h, llm.Message{Role: llm.RoleAssistant, Content: words(rand.New(rand.NewPCG(6, 6)), 3000)},
		llm.Message{Role: llm.RoleUser, Content: "thanks"})
	c := New(Config{Window: 16000, KeepRecentTokens: 100})
	r := &recorder{answer: "S"}
	res, err := c.Compact(context.Background(), h, r.summarize, false)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariant(t, h, res)
	prompt := r.all()
	for _, f := range []string{"src/a.go", "src/b.go", "src/c.go"} {
		if !strings.Contains(prompt, f) || !strings.Contains(res.Summary, f) {
			t.Errorf("%s missing from the prompt or the summary", f)
		}
	}
	if strings.Contains(res.Summary, "nope.go") {
		t.Error("a non-file tool's path was listed")
	}
	if !strings.Contains(between(res.Summary, modifiedOpen, modifiedClose), "src/b.go") ||
		strings.Contains(between(res.Summary, readOpen, readClose), "src/b.go") {
		t.Errorf("edited file not listed as modified: %q", res.Summary)
	}
}

func TestDue(t *testing.T) {
	c := New(Config{Window: 10000})
	limit := c.Limit() // min(8000, 10000-2500)
	if limit != 7500 {
		t.Fatalf("Limit = %d, want 7500", limit)
	}
	h := []llm.Message{{Role: llm.RoleUser, Content: "hello world"}}
	if c.Due(h, 100, nil, 0) {
		t.Error("tiny history due")
	}
	u := &llm.Usage{PromptTokens: limit - 20, CompletionTokens: 10}
	if c.Due(h, 0, u, 1) {
		t.Error("due under the limit by usage")
	}
	h = append(h, llm.Message{Role: llm.RoleTool, Content: strings.Repeat("word ", 50)})
	if !c.Due(h, 0, u, 1) {
		t.Error("not due after adding 50 tokens past the reported usage")
	}
	// since past the end (a compaction happened): full count, ignoring usage.
	if c.Due(h, 0, u, 5) {
		t.Error("stale usage trusted")
	}
	if New(Config{}).Due(h, 1e9, nil, 0) {
		t.Error("due with an unknown window")
	}
}

// Due tokenizes nothing while the text's length alone keeps the history
// under the limit, and counts tokens once it could pass it.
func TestDueTokenizesOnlyNearTheLimit(t *testing.T) {
	var counted int
	est := newEstimator(func(s string) (int, error) { counted++; return (len(s) + 3) / 4, nil })
	c := New(Config{Window: 10000, Estimator: est})
	limit := c.Limit()
	short := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("a", limit/2)}}
	if c.Due(short, 100, nil, 0) {
		t.Error("half the limit in bytes is due")
	}
	if counted != 0 {
		t.Errorf("%d counts for a history whose length is under the limit", counted)
	}
	// Longer than the limit in bytes, but four bytes a token: under it.
	long := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("a", limit*2)}}
	if c.Due(long, 100, nil, 0) {
		t.Error("half the limit in tokens is due")
	}
	if counted == 0 {
		t.Error("a history longer than the limit in bytes was not counted")
	}
	huge := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("a", limit*8)}}
	if !c.Due(huge, 100, nil, 0) {
		t.Error("twice the limit in tokens is not due")
	}
}
