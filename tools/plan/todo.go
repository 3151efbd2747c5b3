package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/moteur/moteur/effect"
	"strings"
	"sync"

	"github.com/moteur/moteur/tools"
)

const todoDescription = `Create or update the step plan of a multi-step retrieval task, and track progress on it.

Use it when a question needs several searches or documents (comparisons, multi-part questions, syntheses across sources). Skip it for questions one search answers.

How to use:
- Each call sends the whole plan: every step, with its current status. Steps left out are dropped.
- Give steps short, stable ids ("1", "2", …) and a concrete description ("Search the 2024 annual report for revenue").
- Status is pending, in_progress or completed. Mark a step in_progress when you start it and completed as soon as it is done; keep one step in progress at a time.
- task names the overall goal; it can be left out on updates.

The plan tracks steps only: write findings, summaries and reasoning with the thinking tool, and the final answer in your reply.`

const todoSchema = `{
  "type": "object",
  "properties": {
    "task": {"type": "string", "description": "The overall goal of the plan; optional on updates."},
    "steps": {
      "type": "array",
      "minItems": 1,
      "description": "The whole plan, in order.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "minLength": 1, "description": "Stable identifier of the step, e.g. \"1\"."},
          "description": {"type": "string", "minLength": 1, "description": "What the step does, concretely."},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"], "description": "Current status of the step."}
        },
        "required": ["id", "description", "status"]
      }
    }
  },
  "required": ["steps"]
}`

// Step statuses.
const (
	statusPending    = "pending"
	statusInProgress = "in_progress"
	statusCompleted  = "completed"
)

type step struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Status      string `json:"status"`
}

type todoArgs struct {
	Task  string `json:"task"`
	Steps []step `json:"steps"`
}

// TodoWrite is the plan tool. It holds the plan of one conversation; create
// one per session with NewTodoWrite.
type TodoWrite struct {
	mu    sync.Mutex
	task  string
	steps []step
}

// NewTodoWrite returns a plan tool with an empty plan.
func NewTodoWrite() *TodoWrite { return &TodoWrite{} }

// Name implements tools.Tool.
func (*TodoWrite) Name() string { return TodoWriteName }

// Description implements tools.Tool.
func (*TodoWrite) Description() string { return todoDescription }

// Schema implements tools.Tool.
func (*TodoWrite) Schema() json.RawMessage { return json.RawMessage(todoSchema) }

// Risk implements tools.Tool: it only writes its own plan.
func (*TodoWrite) Risk() effect.Risk { return effect.RiskRead }

// Concurrent implements tools.Tool: each call replaces the plan, so two
// calls of a round must apply in order.
func (*TodoWrite) Concurrent() bool { return false }

// Execute replaces the plan and returns it formatted, with Display "plan" so
// that an interface can show it as a checklist.
func (t *TodoWrite) Execute(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a todoArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("todo_write: %w", err)
	}
	seen := make(map[string]bool, len(a.Steps))
	for i := range a.Steps {
		s := &a.Steps[i]
		s.ID = strings.TrimSpace(s.ID)
		s.Description = strings.TrimSpace(s.Description)
		if s.ID == "" || s.Description == "" {
			return tools.Result{}, fmt.Errorf("todo_write: step %d needs a non-blank id and description", i+1)
		}
		// Ids are how the model refers to steps on the next update; two
		// steps with one id would make "mark 2 completed" ambiguous.
		if seen[s.ID] {
			return tools.Result{}, fmt.Errorf("todo_write: duplicate step id %q", s.ID)
		}
		seen[s.ID] = true
		switch s.Status {
		case statusPending, statusInProgress, statusCompleted:
		default:
			return tools.Result{}, fmt.Errorf("todo_write: step %q has unknown status %q", s.ID, s.Status)
		}
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	if task := strings.TrimSpace(a.Task); task != "" {
		t.task = task
	}
	t.steps = a.Steps
	return tools.Result{Content: t.format(), Display: "plan"}, nil
}

func (t *TodoWrite) format() string {
	var b strings.Builder
	if t.task != "" {
		fmt.Fprintf(&b, "Plan: %s\n", t.task)
	} else {
		b.WriteString("Plan:\n")
	}
	var done, doing, pending int
	for _, s := range t.steps {
		mark := "[ ]"
		switch s.Status {
		case statusCompleted:
			mark = "[x]"
			done++
		case statusInProgress:
			mark = "[~]"
			doing++
		default:
			pending++
		}
		fmt.Fprintf(&b, "%s %s. %s\n", mark, s.ID, s.Description)
	}
	fmt.Fprintf(&b, "Progress: %d/%d completed, %d in progress, %d pending.", done, len(t.steps), doing, pending)
	if done == len(t.steps) {
		b.WriteString("\nAll steps are completed: write the final answer from the results gathered.")
	}
	return b.String()
}
