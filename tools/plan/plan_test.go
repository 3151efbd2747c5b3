package plan_test

import (
	"context"
	"errors"
	"github.com/moteur/moteur/effect"
	"strings"
	"sync"
	"testing"

	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/tools"
	"github.com/moteur/moteur/tools/plan"
)

func newRegistry(t *testing.T) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry(tools.Config{})
	if err := plan.Register(r); err != nil {
		t.Fatal(err)
	}
	return r
}

func call(r *tools.Registry, name, args string) tools.Result {
	return r.Execute(context.Background(), llm.ToolCall{ID: "c", Name: name, Arguments: args})
}

func mustOK(t *testing.T, res tools.Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("error result: %s", res.Content)
	}
	return res.Content
}

func contains(t *testing.T, content string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(content, w) {
			t.Errorf("content lacks %q:\n%s", w, content)
		}
	}
}

func TestRegister(t *testing.T) {
	r := newRegistry(t)
	if got := strings.Join(r.Names(), ","); got != "thinking,todo_write" {
		t.Fatalf("Names = %s", got)
	}
	for _, n := range r.Names() {
		tool, _ := r.Lookup(n)
		if tool.Concurrent() || tool.Risk() != effect.RiskRead {
			t.Errorf("%s: concurrent %v, risk %s; want false, read", n, tool.Concurrent(), tool.Risk())
		}
		if len(tool.Description()) < 200 {
			t.Errorf("%s: description too thin for the model", n)
		}
	}
	if err := plan.Register(r); !errors.Is(err, tools.ErrDuplicateTool) {
		t.Errorf("second Register = %v, want ErrDuplicateTool", err)
	}
}

func TestThinkingProgress(t *testing.T) {
	r := newRegistry(t)
	out := mustOK(t, call(r, "thinking", `{"thought":"split the question","next_thought_needed":true,"thought_number":1,"total_thoughts":3}`))
	contains(t, out, "Thought 1/3", "thought_history_length: 1", "next_thought_needed: true", "incomplete_steps: 2 (thoughts 2 to 3 of 3", "Never put tool names")

	// Quoted scalars are cast by the registry before the tool sees them.
	out = mustOK(t, call(r, "thinking", `{"thought":"search both reports","next_thought_needed":"true","thought_number":"2","total_thoughts":"3"}`))
	contains(t, out, "Thought 2/3", "thought_history_length: 2", "incomplete_steps: 1")

	// Past the estimate, the total follows the number.
	out = mustOK(t, call(r, "thinking", `{"thought":"one more check","next_thought_needed":true,"thought_number":5,"total_thoughts":3,"needs_more_thoughts":true}`))
	contains(t, out, "Thought 5/5", "needs_more_thoughts: true", "incomplete_steps: 0")

	out = mustOK(t, call(r, "thinking", `{"thought":"enough","next_thought_needed":false,"thought_number":6,"total_thoughts":6}`))
	contains(t, out, "Thought 6/6", "next_thought_needed: false", "Never put tool names")
	if strings.Contains(out, "incomplete_steps") {
		t.Errorf("incomplete_steps reported although thinking is done:\n%s", out)
	}
}

func TestThinkingRevisionAndBranches(t *testing.T) {
	r := newRegistry(t)
	for _, args := range []string{
		`{"thought":"a","next_thought_needed":true,"thought_number":1,"total_thoughts":4}`,
		`{"thought":"b","next_thought_needed":true,"thought_number":2,"total_thoughts":4}`,
	} {
		mustOK(t, call(r, "thinking", args))
	}
	out := mustOK(t, call(r, "thinking", `{"thought":"a was wrong","next_thought_needed":true,"thought_number":3,"total_thoughts":4,"is_revision":true,"revises_thought":1}`))
	contains(t, out, "(revises thought 1)", "revised thoughts: 1", "thought_history_length: 3")

	out = mustOK(t, call(r, "thinking", `{"thought":"try X","next_thought_needed":true,"thought_number":4,"total_thoughts":5,"branch_from_thought":2,"branch_id":"alt-x"}`))
	contains(t, out, `(branch "alt-x" from thought 2)`, "branches: alt-x (1)")
	out = mustOK(t, call(r, "thinking", `{"thought":"try Y","next_thought_needed":true,"thought_number":4,"total_thoughts":5,"branch_from_thought":2,"branch_id":"alt-y"}`))
	contains(t, out, "branches: alt-x (1), alt-y (1)")
	out = mustOK(t, call(r, "thinking", `{"thought":"X again","next_thought_needed":true,"thought_number":5,"total_thoughts":5,"branch_id":"alt-x"}`))
	contains(t, out, `(branch "alt-x")`, "branches: alt-x (2), alt-y (1)", "thought_history_length: 6")

	// A new first thought opens a new sequence.
	out = mustOK(t, call(r, "thinking", `{"thought":"next question","next_thought_needed":false,"thought_number":1,"total_thoughts":1}`))
	contains(t, out, "thought_history_length: 1")
	if strings.Contains(out, "branches") || strings.Contains(out, "revised") {
		t.Errorf("previous sequence leaked into the new one:\n%s", out)
	}
}

func TestThinkingRefusesDanglingReferences(t *testing.T) {
	r := newRegistry(t)
	mustOK(t, call(r, "thinking", `{"thought":"a","next_thought_needed":true,"thought_number":1,"total_thoughts":3}`))
	for args, want := range map[string]string{
		`{"thought":"x","next_thought_needed":true,"thought_number":2,"total_thoughts":3,"is_revision":true}`:                      "revises_thought is missing",
		`{"thought":"x","next_thought_needed":true,"thought_number":2,"total_thoughts":3,"is_revision":true,"revises_thought":7}`:  "revises_thought 7 does not exist",
		`{"thought":"x","next_thought_needed":true,"thought_number":2,"total_thoughts":3,"branch_from_thought":1}`:                 "branch_id is missing",
		`{"thought":"x","next_thought_needed":true,"thought_number":2,"total_thoughts":3,"branch_from_thought":4,"branch_id":"b"}`: "branch_from_thought 4 does not exist",
		`{"thought":"x","next_thought_needed":true,"thought_number":2,"total_thoughts":3,"is_revision":false,"revises_thought":1}`: "is_revision is false",
	} {
		res := call(r, "thinking", args)
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: got %+v, want an error with %q", args, res, want)
		}
	}
	// Refused calls are not recorded.
	out := mustOK(t, call(r, "thinking", `{"thought":"b","next_thought_needed":false,"thought_number":2,"total_thoughts":2}`))
	contains(t, out, "thought_history_length: 2")
}

func TestThinkingSchemaRequiresFields(t *testing.T) {
	r := newRegistry(t)
	for args, want := range map[string][]string{
		`{}`: {"'thought'", "'next_thought_needed'", "'thought_number'", "'total_thoughts'"},
		`{"thought":"a","next_thought_needed":true,"total_thoughts":2}`:                       {"'thought_number'"},
		`{"thought":"a","next_thought_needed":true,"thought_number":0,"total_thoughts":2}`:    {"at '/thought_number'", "minimum"},
		`{"thought":"","next_thought_needed":true,"thought_number":1,"total_thoughts":2}`:     {"at '/thought'"},
		`{"thought":"a","next_thought_needed":"maybe","thought_number":1,"total_thoughts":2}`: {"at '/next_thought_needed'"},
	} {
		res := call(r, "thinking", args)
		if !res.IsError || !strings.HasSuffix(res.Content, i18n.AnalyzeErrorSuffix) {
			t.Errorf("%s: got %+v, want a schema error", args, res)
			continue
		}
		contains(t, res.Content, want...)
	}
}

func TestTodoWriteFormatsThePlan(t *testing.T) {
	r := newRegistry(t)
	res := call(r, "todo_write", `{"task":"Compare 2023 and 2024 revenue","steps":[
		{"id":"1","description":"Find 2023 revenue","status":"completed"},
		{"id":"2","description":"Find 2024 revenue","status":"in_progress"},
		{"id":"3","description":"Compute the change","status":"pending"}]}`)
	out := mustOK(t, res)
	if res.Display != "plan" {
		t.Errorf("Display = %q, want plan", res.Display)
	}
	want := "Plan: Compare 2023 and 2024 revenue\n" +
		"[x] 1. Find 2023 revenue\n" +
		"[~] 2. Find 2024 revenue\n" +
		"[ ] 3. Compute the change\n" +
		"Progress: 1/3 completed, 1 in progress, 1 pending."
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}

	// An update without task keeps the goal and replaces the steps.
	out = mustOK(t, call(r, "todo_write", `{"steps":[
		{"id":"1","description":"Find 2023 revenue","status":"completed"},
		{"id":"2","description":"Find 2024 revenue","status":"completed"}]}`))
	contains(t, out, "Plan: Compare 2023 and 2024 revenue", "[x] 2.", "Progress: 2/2 completed, 0 in progress, 0 pending.", "All steps are completed")
	if strings.Contains(out, "Compute the change") {
		t.Errorf("dropped step still listed:\n%s", out)
	}
}

func TestTodoWriteRefusesDuplicateIDs(t *testing.T) {
	r := newRegistry(t)
	res := call(r, "todo_write", `{"steps":[{"id":"1","description":"a","status":"pending"},{"id":" 1 ","description":"b","status":"pending"}]}`)
	if !res.IsError || !strings.Contains(res.Content, `duplicate step id "1"`) {
		t.Errorf("got %+v", res)
	}
}

func TestTodoWriteSchemaRequiresFields(t *testing.T) {
	r := newRegistry(t)
	for args, want := range map[string][]string{
		`{"task":"t"}`:   {"missing property 'steps'"},
		`{"steps":[]}`:   {"at '/steps'"},
		`{"steps":[{}]}`: {"at '/steps/0'", "'id'", "'description'", "'status'"},
		`{"steps":[{"id":"1","description":"a","status":"done"}]}`: {"at '/steps/0/status'", "'pending', 'in_progress', 'completed'"},
	} {
		res := call(r, "todo_write", args)
		if !res.IsError || !strings.HasSuffix(res.Content, i18n.AnalyzeErrorSuffix) {
			t.Errorf("%s: got %+v, want a schema error", args, res)
			continue
		}
		contains(t, res.Content, want...)
	}
}

func TestFreshInstancesPerSession(t *testing.T) {
	a, b := newRegistry(t), newRegistry(t)
	mustOK(t, call(a, "thinking", `{"thought":"a","next_thought_needed":true,"thought_number":1,"total_thoughts":2}`))
	// b never saw thought 1 of a, so it cannot be revised there.
	res := call(b, "thinking", `{"thought":"x","next_thought_needed":true,"thought_number":2,"total_thoughts":2,"is_revision":true,"revises_thought":1}`)
	if !res.IsError {
		t.Errorf("state shared between sessions: %s", res.Content)
	}
}

func TestConcurrentCallsKeepEveryThought(t *testing.T) {
	th := plan.NewThinking()
	ctx := context.Background()
	if _, err := th.Execute(ctx, []byte(`{"thought":"start","next_thought_needed":true,"thought_number":1,"total_thoughts":9}`)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, err := th.Execute(ctx, []byte(`{"thought":"more","next_thought_needed":true,"thought_number":2,"total_thoughts":9}`)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	res, err := th.Execute(ctx, []byte(`{"thought":"end","next_thought_needed":false,"thought_number":3,"total_thoughts":3}`))
	if err != nil {
		t.Fatal(err)
	}
	contains(t, res.Content, "thought_history_length: 18")
}
