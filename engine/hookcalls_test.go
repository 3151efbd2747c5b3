package engine

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/tools"
)

// hookSet builds hooks from a configuration as a user writes it: event,
// matcher, shell command.
func hookSet(t *testing.T, ev, matcher, command string) *hooks.Set {
	t.Helper()
	set, errs := hooks.New(hooks.Config{ProjectDir: t.TempDir(), Sources: []hooks.Source{{File: "config.yaml",
		Events: map[string][]hooks.Group{ev: {{Matcher: matcher, Hooks: []hooks.Command{{Type: "command", Command: command}}}}}}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return set
}

func hookEvents(evs []event.Event) (started, completed int) {
	for _, ev := range evs {
		switch ev.Type {
		case event.HookStarted:
			started++
		case event.HookCompleted:
			completed++
		}
	}
	return
}

// TestPreToolUseDeny: a hook's JSON permissionDecision deny refuses the
// call, its reason is the call's result, and the tool never runs.
func TestPreToolUseDeny(t *testing.T) {
	ran := false
	echo := &fakeTool{name: "echo", run: func(context.Context, json.RawMessage) (tools.Result, error) {
		ran = true
		return tools.Result{Content: "ran"}, nil
	}}
	steps := []scripted.Step{scripted.Call("c1", "echo", `{"q":"x"}`), {Text: "done"}}
	h := newHarness(t, steps, []tools.Tool{echo}, func(d *Deps) {
		d.Hooks = hookSet(t, "PreToolUse", "echo",
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"pas de echo ici"}}'`)
	})
	if err := h.submit("vas-y"); err != nil {
		t.Fatal(err)
	}
	evs := persisted(h.drain())
	res := last[event.ToolResultPayload](t, evs, event.ToolResult)
	if ran || !res.IsError || !strings.Contains(res.Content, "pas de echo ici") {
		t.Fatalf("ran=%v result %+v", ran, res)
	}
	if s, c := hookEvents(evs); s != 1 || c != 1 {
		t.Fatalf("%d HookStarted, %d HookCompleted", s, c)
	}
	// HookStarted comes before its HookCompleted, both before the result.
	order := types(evs)
	if i, j, k := index(order, event.HookStarted), index(order, event.HookCompleted), index(order, event.ToolResult); !(i < j && j < k) {
		t.Fatalf("order %v", order)
	}
	sameState(t, "restore", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
}

func index(list []event.Type, typ event.Type) int {
	for i, x := range list {
		if x == typ {
			return i
		}
	}
	return -1
}

// TestPreToolUseUpdatedInput: a hook's updatedInput replaces the call's
// arguments before it runs; the recorded assistant message keeps the
// model's.
func TestPreToolUseUpdatedInput(t *testing.T) {
	got := make(chan string, 1)
	echo := &fakeTool{name: "echo", run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		got <- string(args)
		return tools.Result{Content: "ok"}, nil
	}}
	steps := []scripted.Step{scripted.Call("c1", "echo", `{"q":"original"}`), {Text: "done"}}
	h := newHarness(t, steps, []tools.Tool{echo}, func(d *Deps) {
		d.Hooks = hookSet(t, "PreToolUse", "echo",
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"q":"changé"}}}'`)
	})
	if err := h.submit("vas-y"); err != nil {
		t.Fatal(err)
	}
	var args struct{ Q string }
	if err := json.Unmarshal([]byte(<-got), &args); err != nil || args.Q != "changé" {
		t.Fatalf("the tool ran with %+v (%v)", args, err)
	}
	am := persisted(h.drain())
	for _, ev := range am {
		if p, ok := ev.Payload.(event.AssistantMessagePayload); ok && len(p.ToolCalls) > 0 && p.ToolCalls[0].Arguments != `{"q":"original"}` {
			t.Fatalf("the recorded call was changed: %s", p.ToolCalls[0].Arguments)
		}
	}
}

// TestUserPromptSubmitContext: a hook's output is joined to the user's
// message as hook_context; the model reads it, and Restore rebuilds it.
func TestUserPromptSubmitContext(t *testing.T) {
	h := newHarness(t, []scripted.Step{{Text: "ok"}}, nil, func(d *Deps) {
		d.Hooks = hookSet(t, "UserPromptSubmit", "", `echo "branche courante : main"`)
	})
	if err := h.submit("où en est-on ?"); err != nil {
		t.Fatal(err)
	}
	um := last[event.UserMessagePayload](t, persisted(h.drain()), event.UserMessage)
	if um.HookContext != "branche courante : main" {
		t.Fatalf("hook_context %q", um.HookContext)
	}
	msgs := h.p.Requests()[0].Messages
	if got := msgs[len(msgs)-1].Content; got != "où en est-on ?\n\nbranche courante : main" {
		t.Fatalf("the model read %q", got)
	}
	sameState(t, "restore", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
}

// TestUserPromptSubmitBlocked: exit 2 blocks the prompt: recorded as
// blocked, never sent, the reason shown, the turn ended.
func TestUserPromptSubmitBlocked(t *testing.T) {
	h := newHarness(t, nil, nil, func(d *Deps) {
		d.Hooks = hookSet(t, "UserPromptSubmit", "", `echo "pas de mot de passe dans le prompt" >&2; exit 2`)
	})
	err := h.submit("mon mot de passe est hunter2")
	if err == nil || !strings.Contains(err.Error(), "pas de mot de passe") {
		t.Fatalf("err %v", err)
	}
	evs := persisted(h.drain())
	if um := last[event.UserMessagePayload](t, evs, event.UserMessage); !um.Blocked {
		t.Fatalf("UserMessage %+v not blocked", um)
	}
	if w := last[event.WarningPayload](t, evs, event.Warning); !strings.Contains(w.Message, "pas de mot de passe") {
		t.Fatalf("warning %+v", w)
	}
	if completed(t, evs).Reason != StopBlocked || len(h.p.Requests()) != 0 {
		t.Fatalf("turn %+v, %d requests", completed(t, evs), len(h.p.Requests()))
	}
	st := mustReplay(t, h.sink.all())
	if len(st.history) != 0 {
		t.Fatalf("a blocked message is in the history: %+v", st.history)
	}
	sameState(t, "restore", h.e.existing("s1").st, st)
}

// TestStopHookSendsBackOnce: a Stop hook that blocks while
// stop_hook_active is false sends the agent back to work once with its
// reason as the next user message; the second time it is active.
func TestStopHookSendsBackOnce(t *testing.T) {
	steps := []scripted.Step{{Text: "premier jet"}, {Text: "version vérifiée"}}
	h := newHarness(t, steps, nil, func(d *Deps) {
		d.Hooks = hookSet(t, "Stop", "",
			`if grep -q '"stop_hook_active":true'; then exit 0; fi; echo "lance les tests avant de conclure" >&2; exit 2`)
	})
	if err := h.submit("corrige le bug"); err != nil {
		t.Fatal(err)
	}
	evs := persisted(h.drain())
	if got := completed(t, evs).Answer; got != "version vérifiée" {
		t.Fatalf("answer %q", got)
	}
	var users []string
	for _, ev := range evs {
		if p, ok := ev.Payload.(event.UserMessagePayload); ok {
			users = append(users, p.Text)
		}
	}
	if len(users) != 2 || users[1] != "lance les tests avant de conclure" {
		t.Fatalf("user messages %q", users)
	}
	if s, c := hookEvents(evs); s != 2 || c != 2 {
		t.Fatalf("the Stop hook ran %d/%d times, want 2", s, c)
	}
	second := h.p.Requests()[1].Messages
	if got := second[len(second)-1]; got.Role != llm.RoleUser || got.Content != "lance les tests avant de conclure" {
		t.Fatalf("the second request ends with %+v", got)
	}
	sameState(t, "restore", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
}

// TestEndSessionRunsSessionEnd: EndSession runs the SessionEnd hooks of a
// session this Engine started, with the reason, recorded; no TurnCompleted.
func TestEndSessionRunsSessionEnd(t *testing.T) {
	out := t.TempDir() + "/reason"
	h := newHarness(t, []scripted.Step{{Text: "ok"}}, nil, func(d *Deps) {
		d.Hooks = hookSet(t, "SessionEnd", "", `cat > `+out)
	})
	if err := h.e.EndSession(context.Background(), "s1", "logout"); err != nil {
		t.Fatal(err)
	}
	if len(h.sink.all()) != 0 {
		t.Fatal("EndSession of an unknown session recorded something")
	}
	if err := h.submit("salut"); err != nil {
		t.Fatal(err)
	}
	h.drain()
	if err := h.e.EndSession(context.Background(), "s1", "logout"); err != nil {
		t.Fatal(err)
	}
	evs := persisted(h.drain())
	if got := types(evs); len(got) != 2 || got[0] != event.HookStarted || got[1] != event.HookCompleted {
		t.Fatalf("EndSession emitted %v", got)
	}
	data := readFile(t, out)
	if !strings.Contains(data, `"reason":"logout"`) || !strings.Contains(data, `"hook_event_name":"SessionEnd"`) {
		t.Fatalf("the hook read %s", data)
	}
}

// TestSubAgentHooksTagged: PreToolUse runs on a child's calls, and its
// events carry the parent's call id.
func TestSubAgentHooksTagged(t *testing.T) {
	h, _ := agentHarness(t, childScript("echo", "T"), []tools.Tool{&fakeTool{name: "echo"}}, func(d *Deps) {
		d.Hooks = hookSet(t, "PreToolUse", "echo", `echo '{"decision":"block","reason":"non"}'`)
	})
	if err := h.submit("délègue"); err != nil {
		t.Fatal(err)
	}
	evs := persisted(h.drain())
	tagged := 0
	for _, ev := range evs {
		if ev.Type == event.HookCompleted && ev.ParentCallID == "a1" {
			tagged++
		}
		if p, ok := ev.Payload.(event.ToolResultPayload); ok && ev.ParentCallID == "a1" && !strings.Contains(p.Content, "non") {
			t.Fatalf("the child's call was not refused: %+v", p)
		}
	}
	if tagged != 1 {
		t.Fatalf("%d tagged HookCompleted", tagged)
	}
	sameState(t, "restore", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
