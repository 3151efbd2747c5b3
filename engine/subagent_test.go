package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/routing"
	"github.com/moteur/moteur/tools"
)

// funcProvider answers each request with a function of it: sub-agents run
// at once, so a script in order cannot say which one asks.
type funcProvider struct {
	name  string
	model string // "": "m"
	local bool
	mu    sync.Mutex
	reqs  []llm.Request
	fn    func(req llm.Request) llm.Response
}

func (f *funcProvider) Name() string { return f.name }
func (f *funcProvider) Model() string {
	if f.model == "" {
		return "m"
	}
	return f.model
}
func (f *funcProvider) Local() bool { return f.local }
func (f *funcProvider) Stream(_ context.Context, req llm.Request, _ func(llm.Delta)) (llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	return f.fn(req), nil
}

func (f *funcProvider) requests() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Request(nil), f.reqs...)
}

// isChild: a child's system prompt carries the sub-agent preamble.
func isChild(req llm.Request) bool {
	return strings.Contains(req.Messages[0].Content, i18n.SubAgentPreamble(i18n.FR))
}

// task is the child's task (its first user message).
func task(req llm.Request) string { return req.Messages[1].Content }

// toolRounds counts the rounds with calls already in a request.
func toolRounds(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 {
			n++
		}
	}
	return n
}

// childScript: the parent calls one agent per task in one round, then
// answers with what they said; each child calls tool once with its task,
// then answers "answer TASK".
func childScript(tool string, tasks ...string) func(llm.Request) llm.Response {
	return func(req llm.Request) llm.Response {
		if isChild(req) {
			if toolRounds(req) == 0 {
				return llm.Response{Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{
					{ID: "c1", Name: tool, Arguments: fmt.Sprintf(`{"q":%q}`, task(req))}}}
			}
			return llm.Response{Text: "answer " + task(req), Finish: llm.FinishStop}
		}
		if toolRounds(req) == 0 {
			resp := llm.Response{Finish: llm.FinishToolCalls}
			for i, tk := range tasks {
				resp.ToolCalls = append(resp.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("a%d", i+1), Name: agents.ToolName,
					Arguments: fmt.Sprintf(`{"description":"d","prompt":%q,"subagent_type":"general-purpose"}`, tk)})
			}
			return resp
		}
		var parts []string
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				parts = append(parts, m.Content)
			}
		}
		return llm.Response{Text: "synthesis: " + strings.Join(parts, " | "), Finish: llm.FinishStop}
	}
}

// agentHarness is a harness whose provider answers by function and whose
// engine has the built-in agents (and the project's, under dir).
func agentHarness(t *testing.T, fn func(llm.Request) llm.Response, toolset []tools.Tool, tweak func(*Deps)) (*harness, *funcProvider) {
	t.Helper()
	fp := &funcProvider{name: "p", fn: fn}
	h := newHarness(t, nil, toolset, func(d *Deps) {
		d.Provider = fp
		cat, errs := agents.Load(agents.Config{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		d.Agents = cat
		if tweak != nil {
			tweak(d)
		}
	})
	t.Cleanup(func() { checkPairing(t, fp.requests()) })
	return h, fp
}

// barrierTool returns a tool that waits until n calls are in it at once;
// it fails the call when they do not come (the calls did not overlap).
func barrierTool(t *testing.T, name string, n int) tools.Tool {
	var mu sync.Mutex
	in := 0
	all := make(chan struct{})
	return &fakeTool{name: name, concurrent: true, run: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		mu.Lock()
		if in++; in == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return tools.Result{Content: "seen " + string(args)}, nil
		case <-time.After(10 * time.Second): // a failure deadline, not a synchronisation
			t.Errorf("%s: %d calls never ran at once", name, n)
			return tools.Result{IsError: true, Content: "alone"}, nil
		case <-ctx.Done():
			return tools.Result{IsError: true, Content: "cancelled"}, nil
		}
	}}
}

// TestSubAgentsRunInParallelTagged: two `agent` calls of one round run
// their children at once (their tool calls meet at a barrier); every
// event of a child carries its parent's call id, each child's events are
// in order and end before the parent's result for that call, which is the
// child's answer; the parent never sees a child's messages; and Restore
// rebuilds the live state.
func TestSubAgentsRunInParallelTagged(t *testing.T) {
	h, fp := agentHarness(t, childScript("probe", "A", "B"), []tools.Tool{barrierTool(t, "probe", 2)}, nil)
	if err := h.submit("fais deux recherches"); err != nil {
		t.Fatal(err)
	}
	evs := persisted(h.drain())
	if got := completed(t, evs).Answer; got != "synthesis: answer A | answer B" {
		t.Fatalf("answer %q", got)
	}
	for _, id := range []string{"a1", "a2"} {
		var kinds []event.Type
		resultAt := -1
		for i, ev := range evs {
			if ev.ParentCallID == id {
				if resultAt >= 0 {
					t.Fatalf("%s: child event %s after the parent's result", id, ev.Type)
				}
				kinds = append(kinds, ev.Type)
			}
			if p, ok := ev.Payload.(event.ToolResultPayload); ok && ev.ParentCallID == "" && p.CallID == id {
				resultAt = i
			}
		}
		want := []event.Type{event.UserMessage, event.AssistantMessage, event.ToolResult, event.AssistantMessage}
		if fmt.Sprint(kinds) != fmt.Sprint(want) {
			t.Fatalf("%s: child events %v, want %v", id, kinds, want)
		}
	}
	for _, r := range fp.requests() {
		if isChild(r) {
			if !strings.HasPrefix(r.Messages[0].Content, "SYSTEM\n\n") {
				t.Fatalf("child prompt does not start with the base prompt: %q", r.Messages[0].Content)
			}
			for _, d := range r.Tools {
				if d.Name == agents.ToolName {
					t.Fatal("a child was offered the agent tool (nesting)")
				}
			}
			continue
		}
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "seen ") {
				t.Fatalf("the parent's request holds a child's tool result: %q", m.Content)
			}
		}
	}
	sameState(t, "restore of a session with children", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
}

// TestSubAgentApprovalNamesTheChild: a child's call that needs approval
// is asked of the user, tagged with the parent call and naming the agent;
// the answer lets it run.
func TestSubAgentApprovalNamesTheChild(t *testing.T) {
	ran := make(chan string, 1)
	write := &fakeTool{name: "write", risk: effect.RiskWrite, run: func(_ context.Context, args json.RawMessage) (tools.Result, error) {
		ran <- string(args)
		return tools.Result{Content: "written"}, nil
	}}
	h, _ := agentHarness(t, childScript("write", "W"), []tools.Tool{write}, func(d *Deps) {
		perms, err := policy.NewPermissions(policy.PermissionsConfig{Mode: policy.Confirm})
		if err != nil {
			t.Fatal(err)
		}
		d.Permissions = perms
	})
	asked := make(chan event.Event, 1)
	// Subscribed before the turn starts: a request asked before the
	// subscription would be missed, and the turn would wait for it.
	events := h.e.Subscribe()
	go func() {
		for ev := range events {
			if p, ok := ev.Payload.(event.PermissionRequestedPayload); ok {
				asked <- ev
				_ = h.e.Respond(p.ID, Reply{Allow: true})
				return
			}
		}
	}()
	if err := h.submit("écris"); err != nil {
		t.Fatal(err)
	}
	ev := <-asked
	p := ev.Payload.(event.PermissionRequestedPayload)
	if ev.ParentCallID != "a1" || !strings.Contains(p.Summary, "general-purpose") || p.Tool != "write" {
		t.Fatalf("request %+v (parent %q): not the child's, or the child is not named", p, ev.ParentCallID)
	}
	if got := <-ran; got != `{"q":"W"}` {
		t.Fatalf("the child's call ran with %s", got)
	}
	evs := persisted(h.drain())
	res := last[event.PermissionResolvedPayload](t, evs, event.PermissionResolved)
	if !res.Allow {
		t.Fatalf("resolved %+v", res)
	}
	sameState(t, "restore", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
	if h.e.existing("s1").st.permSeq != p.Number {
		t.Fatalf("permission counter %d, the child's request was %d", h.e.existing("s1").st.permSeq, p.Number)
	}
}

// TestSubAgentClassifiedMakesSessionSensitive: a child reads a classified
// file; the whole session turns sensitive (the event carries the parent
// call id), and the parent's next request goes to the local provider,
// live and after Restore.
func TestSubAgentClassifiedMakesSessionSensitive(t *testing.T) {
	read := &fakeTool{name: "read_file", concurrent: true, run: func(context.Context, json.RawMessage) (tools.Result, error) {
		return tools.Result{Content: "budget 2027", Classified: "secret/**"}, nil
	}}
	fn := childScript("read_file", "lis secret/budget.txt")
	remote := &funcProvider{name: "remote", fn: fn}
	local := &funcProvider{name: "local", local: true, fn: fn}
	h, _ := agentHarness(t, fn, []tools.Tool{read}, func(d *Deps) {
		r, err := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: remote, Endpoint: "https://api.example/v1"}, {Provider: local, Local: true}}})
		if err != nil {
			t.Fatal(err)
		}
		d.Provider, d.Router = remote, r
	})
	if err := h.submit("que dit le budget ?"); err != nil {
		t.Fatal(err)
	}
	evs := persisted(h.drain())
	var classified *event.Event
	for i := range evs {
		if evs[i].Type == event.SessionClassified {
			classified = &evs[i]
		}
	}
	if classified == nil || classified.ParentCallID != "a1" {
		t.Fatalf("no SessionClassified from the child: %v", types(evs))
	}
	if !h.e.existing("s1").st.sensitive {
		t.Fatal("the session is not sensitive")
	}
	for _, r := range remote.requests() {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "budget 2027") {
				t.Fatal("classified content went to the remote provider")
			}
		}
	}
	// The parent's synthesis (after the child) went to the local one.
	var parentLocal bool
	for _, r := range local.requests() {
		parentLocal = parentLocal || !isChild(r)
	}
	if !parentLocal {
		t.Fatal("the parent's next request did not go to the local provider")
	}
	st := mustReplay(t, h.sink.all())
	if !st.sensitive {
		t.Fatal("Restore lost the child's classification")
	}
	sameState(t, "restore", h.e.existing("s1").st, st)
}

// TestSubAgentCancelled: cancelling the turn reaches a child that waits in
// its tool.
func TestSubAgentCancelled(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	wait := &fakeTool{name: "wait", concurrent: true, run: func(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
		once.Do(func() { close(started) })
		<-ctx.Done()
		return tools.Result{IsError: true, Content: "cancelled"}, nil
	}}
	h, _ := agentHarness(t, childScript("wait", "W"), []tools.Tool{wait}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	err := h.e.Submit(ctx, "s1", "attends")
	if err == nil {
		t.Fatal("a cancelled turn returned nil")
	}
	evs := persisted(h.drain())
	if completed(t, evs).Reason != event.StopCancelled {
		t.Fatalf("turn ended %q", completed(t, evs).Reason)
	}
	sameState(t, "restore", h.e.existing("s1").st, mustReplay(t, h.sink.all()))
}

// TestSubAgentFileAndOutputLimit: a project agent file narrows the child's
// tools to its allowlist (Claude Code's names), its body is in the
// child's prompt, and the answer is cut to OutputLimit.
func TestSubAgentFileAndOutputLimit(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := "---\nname: lecteur\ndescription: lit des fichiers\ntools: Read\n---\nTu lis, rien d'autre.\n"
	if err := os.WriteFile(filepath.Join(dir, ".claude", "agents", "lecteur.md"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	fn := func(req llm.Request) llm.Response {
		if isChild(req) {
			return llm.Response{Text: strings.Repeat("x", 50), Finish: llm.FinishStop}
		}
		if toolRounds(req) == 0 {
			return llm.Response{Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{{ID: "a1", Name: agents.ToolName,
				Arguments: `{"description":"d","prompt":"lis","subagent_type":"lecteur"}`}}}
		}
		return llm.Response{Text: "fini", Finish: llm.FinishStop}
	}
	h, fp := agentHarness(t, fn, []tools.Tool{&fakeTool{name: "read_file"}, &fakeTool{name: "write_file"}}, func(d *Deps) {
		cat, errs := agents.Load(agents.Config{ProjectDir: dir})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		d.Agents, d.OutputLimit, d.SkillsSection = cat, 10, "SKILLS SECTION"
	})
	if err := h.submit("lis"); err != nil {
		t.Fatal(err)
	}
	var child llm.Request
	for _, r := range fp.requests() {
		if isChild(r) {
			child = r
		}
	}
	var names []string
	for _, d := range child.Tools {
		names = append(names, d.Name)
	}
	if fmt.Sprint(names) != "[read_file]" {
		t.Fatalf("child tools %v, want [read_file]", names)
	}
	if sys := child.Messages[0].Content; !strings.Contains(sys, "Tu lis, rien d'autre.") || !strings.HasSuffix(sys, "SKILLS SECTION") {
		t.Fatalf("child prompt %q", sys)
	}
	res := last[event.ToolResultPayload](t, persisted(h.drain()), event.ToolResult)
	if !res.Truncated || !strings.HasPrefix(res.Content, strings.Repeat("x", 10)+"\n") {
		t.Fatalf("result not cut to 10: %+v", res)
	}
}

// TestSubAgentModelPicksItsProvider: a sub-agent whose file names a model
// sends its requests to the router's candidate that serves it, while its
// parent keeps the preferred one.
func TestSubAgentModelPicksItsProvider(t *testing.T) {
	script := childScript("echo", "T")
	big := &funcProvider{name: "big", model: "m-big", fn: script}
	small := &funcProvider{name: "small", model: "m-small", fn: script}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".moteur", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".moteur", "agents", "fast.md"),
		[]byte("---\nname: fast\ndescription: quick lookups\nmodel: m-small\n---\nBe quick.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, errs := agents.Load(agents.Config{ProjectDir: dir, Models: []string{"m-big", "m-small"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	router, err := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: big}, {Provider: small}}})
	if err != nil {
		t.Fatal(err)
	}
	parent := func(req llm.Request) llm.Response {
		if toolRounds(req) == 0 {
			return llm.Response{Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{{ID: "a1", Name: agents.ToolName,
				Arguments: `{"description":"d","prompt":"T","subagent_type":"fast"}`}}}
		}
		return llm.Response{Text: "done", Finish: llm.FinishStop}
	}
	big.fn = func(req llm.Request) llm.Response {
		if isChild(req) {
			return script(req)
		}
		return parent(req)
	}
	h := newHarness(t, nil, []tools.Tool{echoTool()}, func(d *Deps) {
		d.Provider, d.Router, d.Agents = big, router, cat
	})
	if err := h.submit("go"); err != nil {
		t.Fatal(err)
	}
	for _, req := range big.requests() {
		if isChild(req) {
			t.Fatal("the child's request went to the parent's provider")
		}
	}
	if len(small.requests()) == 0 {
		t.Fatal("the child never asked m-small")
	}
	for _, req := range small.requests() {
		if !isChild(req) {
			t.Fatal("a parent's request went to the child's model")
		}
	}
}

// TestSubAgentsNestOnlyAsConfigured: with a catalog whose MaxDepth is 2, a
// child may start a grandchild, whose events carry its own parent's call
// id and which gets no agent tool; with the default, a child is offered no
// agent tool at all.
func TestSubAgentsNestOnlyAsConfigured(t *testing.T) {
	firstUser := func(req llm.Request) string {
		for _, m := range req.Messages {
			if m.Role == llm.RoleUser {
				return m.Content
			}
		}
		return ""
	}
	hasAgent := func(req llm.Request) bool {
		for _, d := range req.Tools {
			if d.Name == agents.ToolName {
				return true
			}
		}
		return false
	}
	call := func(id, prompt string) llm.Response {
		return llm.Response{Finish: llm.FinishToolCalls, ToolCalls: []llm.ToolCall{{ID: id, Name: agents.ToolName,
			Arguments: fmt.Sprintf(`{"description":"d","prompt":%q}`, prompt)}}}
	}
	script := func(req llm.Request) llm.Response {
		switch {
		case toolRounds(req) > 0:
			return llm.Response{Text: "up from " + firstUser(req), Finish: llm.FinishStop}
		case !isChild(req):
			return call("a1", "LEVEL1")
		case strings.Contains(firstUser(req), "LEVEL1") && hasAgent(req):
			return call("b1", "LEVEL2")
		}
		return llm.Response{Text: "deep " + firstUser(req), Finish: llm.FinishStop}
	}
	for _, depth := range []int{0, 2} {
		cat, errs := agents.Load(agents.Config{MaxDepth: depth})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		h, fp := agentHarness(t, script, nil, func(d *Deps) { d.Agents = cat })
		if err := h.submit("go"); err != nil {
			t.Fatal(err)
		}
		var levels []string
		for _, req := range fp.requests() {
			if isChild(req) && toolRounds(req) == 0 {
				levels = append(levels, fmt.Sprintf("%s agent=%v", firstUser(req), hasAgent(req)))
			}
		}
		evs := h.drain()
		tagged := map[string]int{}
		for _, ev := range persisted(evs) {
			if ev.ParentCallID != "" {
				tagged[ev.ParentCallID]++
			}
		}
		switch depth {
		case 0:
			if len(levels) != 1 || levels[0] != "LEVEL1 agent=false" || tagged["b1"] != 0 {
				t.Fatalf("default: children %v, events by parent %v", levels, tagged)
			}
		case 2:
			if len(levels) != 2 || levels[0] != "LEVEL1 agent=true" || levels[1] != "LEVEL2 agent=false" || tagged["a1"] == 0 || tagged["b1"] == 0 {
				t.Fatalf("depth 2: children %v, events by parent %v", levels, tagged)
			}
			res := last[event.ToolResultPayload](t, persisted(evs), event.ToolResult)
			if res.CallID != "a1" || !strings.Contains(res.Content, "up from LEVEL1") {
				t.Fatalf("the parent's result: %+v", res)
			}
		}
		sameState(t, fmt.Sprintf("depth %d", depth), h.e.existing("s1").st, mustReplay(t, h.sink.all()))
	}
}
