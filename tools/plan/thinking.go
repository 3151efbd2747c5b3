package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"slices"
	"strings"
	"sync"

	"github.com/moteur/moteur/tools"
)

const thinkingDescription = `Think step by step before acting, in a sequence of numbered thoughts you can revise or branch.

Use it to break a complex question into parts, decide which searches or documents are needed, check what the results gathered so far do and do not answer, and summarise findings before writing the answer. Skip it for simple questions.

How to use:
- One call per thought. Start at thought_number 1 with an estimate in total_thoughts; adjust the estimate up or down as you go.
- Set next_thought_needed to true while more thinking is needed, false when you are ready to act or answer.
- To correct an earlier thought, set is_revision to true and revises_thought to its number.
- To explore an alternative, set branch_from_thought to the thought you start from and give the branch a branch_id.
- If you reach the planned total but need more, set needs_more_thoughts to true and keep going.

Thoughts are private notes. Never put tool names, tool calls or the final answer inside a thought: call tools directly, and write the final answer in your reply once thinking is done.`

const thinkingSchema = `{
  "type": "object",
  "properties": {
    "thought": {"type": "string", "minLength": 1, "description": "Your current thinking step: analysis, a plan, a revision, a hypothesis or its verification, a summary of findings."},
    "next_thought_needed": {"type": "boolean", "description": "True if another thought is needed, false when you are ready to act or answer."},
    "thought_number": {"type": "integer", "minimum": 1, "description": "Number of this thought, starting at 1; may exceed total_thoughts."},
    "total_thoughts": {"type": "integer", "minimum": 1, "description": "Current estimate of the thoughts needed; may be adjusted."},
    "is_revision": {"type": "boolean", "description": "True if this thought revises an earlier one."},
    "revises_thought": {"type": "integer", "minimum": 1, "description": "With is_revision: the number of the thought being reconsidered."},
    "branch_from_thought": {"type": "integer", "minimum": 1, "description": "When branching: the number of the thought the branch starts from."},
    "branch_id": {"type": "string", "description": "Identifier of the branch this thought belongs to."},
    "needs_more_thoughts": {"type": "boolean", "description": "True if, at the planned end, more thoughts turn out to be needed."}
  },
  "required": ["thought", "next_thought_needed", "thought_number", "total_thoughts"]
}`

// thinkingReminder ends every result: models tend to write the answer, or a
// pseudo tool call, into a thought and then stop, leaving the user nothing.
const thinkingReminder = "Reminder: thoughts are private notes. Never put tool names, tool calls or the final answer inside a thought: call tools directly, and write the final answer in your reply."

// thought is one recorded call.
type thought struct {
	Thought           string `json:"thought"`
	NextThoughtNeeded bool   `json:"next_thought_needed"`
	ThoughtNumber     int    `json:"thought_number"`
	TotalThoughts     int    `json:"total_thoughts"`
	IsRevision        bool   `json:"is_revision"`
	RevisesThought    int    `json:"revises_thought"`
	BranchFromThought int    `json:"branch_from_thought"`
	BranchID          string `json:"branch_id"`
	NeedsMoreThoughts bool   `json:"needs_more_thoughts"`
}

// Thinking is the sequential-thinking tool. It records the thoughts of one
// conversation; create one per session with NewThinking.
type Thinking struct {
	mu       sync.Mutex
	history  []thought
	branches map[string][]thought
	order    []string // branch ids in creation order, for stable output
}

// NewThinking returns a thinking tool with no thoughts recorded.
func NewThinking() *Thinking {
	return &Thinking{branches: map[string][]thought{}}
}

// Name implements tools.Tool.
func (*Thinking) Name() string { return ThinkingName }

// Description implements tools.Tool.
func (*Thinking) Description() string { return thinkingDescription }

// Schema implements tools.Tool.
func (*Thinking) Schema() json.RawMessage { return json.RawMessage(thinkingSchema) }

// Risk implements tools.Tool: it only writes its own notes.
func (*Thinking) Risk() effect.Risk { return effect.RiskRead }

// Concurrent implements tools.Tool: thoughts are numbered, so two calls of a
// round must be recorded in the order the model wrote them.
func (*Thinking) Concurrent() bool { return false }

// Execute records one thought and reports where the sequence stands.
func (t *Thinking) Execute(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var th thought
	if err := json.Unmarshal(args, &th); err != nil {
		return tools.Result{}, fmt.Errorf("thinking: %w", err)
	}
	if th.ThoughtNumber < 1 || th.TotalThoughts < 1 {
		return tools.Result{}, fmt.Errorf("thinking: thought_number and total_thoughts must be at least 1")
	}
	if th.ThoughtNumber > th.TotalThoughts {
		th.TotalThoughts = th.ThoughtNumber
	}
	th.BranchID = strings.TrimSpace(th.BranchID)

	t.mu.Lock()
	defer t.mu.Unlock()
	// The model restarts at 1 for each new question of the session: a plain
	// first thought opens a new sequence instead of piling onto the last.
	if th.ThoughtNumber == 1 && !th.IsRevision && th.BranchFromThought == 0 && th.BranchID == "" {
		t.history = nil
		t.branches = map[string][]thought{}
		t.order = nil
	}
	if err := t.check(th); err != nil {
		return tools.Result{}, err
	}
	t.history = append(t.history, th)
	if th.BranchID != "" {
		if _, ok := t.branches[th.BranchID]; !ok {
			t.order = append(t.order, th.BranchID)
		}
		t.branches[th.BranchID] = append(t.branches[th.BranchID], th)
	}
	return tools.Result{Content: t.report(th)}, nil
}

// check refuses references to thoughts that do not exist, which would leave
// the model believing it revised or branched from something.
func (t *Thinking) check(th thought) error {
	last := t.lastNumber()
	switch {
	case th.IsRevision && th.RevisesThought == 0:
		return fmt.Errorf("thinking: is_revision is true but revises_thought is missing: give the number of the thought you revise")
	case th.RevisesThought != 0 && !th.IsRevision:
		return fmt.Errorf("thinking: revises_thought is set but is_revision is false")
	case th.RevisesThought > last:
		return fmt.Errorf("thinking: revises_thought %d does not exist yet (last thought: %d)", th.RevisesThought, last)
	case th.BranchFromThought != 0 && th.BranchID == "":
		return fmt.Errorf("thinking: branch_from_thought is set but branch_id is missing: name the branch")
	case th.BranchFromThought > last:
		return fmt.Errorf("thinking: branch_from_thought %d does not exist yet (last thought: %d)", th.BranchFromThought, last)
	}
	return nil
}

// lastNumber is the highest thought number recorded so far.
func (t *Thinking) lastNumber() int {
	n := 0
	for _, h := range t.history {
		n = max(n, h.ThoughtNumber)
	}
	return n
}

func (t *Thinking) report(th thought) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Thought %d/%d recorded", th.ThoughtNumber, th.TotalThoughts)
	switch {
	case th.IsRevision:
		fmt.Fprintf(&b, " (revises thought %d)", th.RevisesThought)
	case th.BranchFromThought != 0:
		fmt.Fprintf(&b, " (branch %q from thought %d)", th.BranchID, th.BranchFromThought)
	case th.BranchID != "":
		fmt.Fprintf(&b, " (branch %q)", th.BranchID)
	}
	b.WriteString(".\n")
	fmt.Fprintf(&b, "thought_history_length: %d\n", len(t.history))
	if len(t.order) > 0 {
		parts := make([]string, 0, len(t.order))
		for _, id := range t.order {
			parts = append(parts, fmt.Sprintf("%s (%d)", id, len(t.branches[id])))
		}
		fmt.Fprintf(&b, "branches: %s\n", strings.Join(parts, ", "))
	}
	if revised := t.revised(); len(revised) > 0 {
		fmt.Fprintf(&b, "revised thoughts: %s\n", joinInts(revised))
	}
	if th.NeedsMoreThoughts {
		b.WriteString("needs_more_thoughts: true (raise total_thoughts as you go)\n")
	}
	if th.NextThoughtNeeded {
		b.WriteString("next_thought_needed: true\n")
		switch left := th.TotalThoughts - th.ThoughtNumber; {
		case left == 1:
			fmt.Fprintf(&b, "incomplete_steps: 1 (thought %d of %d still planned)\n", th.TotalThoughts, th.TotalThoughts)
		case left > 1:
			fmt.Fprintf(&b, "incomplete_steps: %d (thoughts %d to %d of %d still planned)\n", left, th.ThoughtNumber+1, th.TotalThoughts, th.TotalThoughts)
		default:
			fmt.Fprintf(&b, "incomplete_steps: 0 planned, but you asked for another thought: continue with thought %d and raise total_thoughts\n", th.ThoughtNumber+1)
		}
	} else {
		b.WriteString("next_thought_needed: false (thinking is done: call the tools you planned, or write the final answer)\n")
	}
	b.WriteString(thinkingReminder)
	return b.String()
}

// revised lists the numbers of the thoughts revised so far, sorted.
func (t *Thinking) revised() []int {
	var ns []int
	for _, h := range t.history {
		if h.IsRevision && !slices.Contains(ns, h.RevisesThought) {
			ns = append(ns, h.RevisesThought)
		}
	}
	slices.Sort(ns)
	return ns
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
