package engine

import (
	"context"
	"testing"
	"time"

	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/checkpoint"
	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/hooks"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/orgpolicy"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/provider/scripted"
	"github.com/moteur/moteur/routing"
	"github.com/moteur/moteur/tools"
)

// TestSeed003API compiles code written against seed 003: a Deps literal
// setting every field the seed lists, and every method with the seed's
// signature. It runs too: a session with all of it answers and ends.
func TestSeed003API(t *testing.T) {
	cat, _ := agents.Load(agents.Config{})
	set, errs := hooks.New(hooks.Config{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var p provider.Provider = scripted.New(scripted.Config{Steps: []scripted.Step{{Text: "ok"}}})
	router, err := routing.New(routing.Config{Candidates: []routing.Candidate{{Provider: p}}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	d := Deps{
		Provider:            p,
		Tools:               tools.NewRegistry(tools.Config{}),
		Permissions:         (*policy.Permissions)(nil),
		Outbound:            (*policy.Outbound)(nil),
		Sinks:               []event.Sink{sink},
		MaxIterations:       10,
		SystemPrompt:        "SYSTEM",
		ProjectRoot:         t.TempDir(),
		Instructions:        []string{"AGENTS.md"},
		Now:                 time.Now,
		ContextWindow:       32000,
		CompactionThreshold: 0.8,
		UnavailableMCP:      []event.McpServerDownPayload{},
		MCP:                 []event.MCPServerInfo{},
		Agents:              cat,
		BasePrompt:          "BASE",
		SkillsSection:       "SKILLS",
		Lang:                i18n.EN,
		OutputLimit:         1000,
		Hooks:               set,
		TranscriptPath:      "/tmp/s.jsonl",
		Notify:              true,
		Checkpoints:         (*checkpoint.Store)(nil),
		Profile:             profile.Name(""),
		Policy:              (*orgpolicy.Policy)(nil),
		Allowlists:          []hostmatch.List{},
		ShellSandboxed:      false,
		Sandbox:             nil,
		Classify:            classify.Rules{},
		Router:              router,
		Routing:             (*event.RoutingInfo)(nil),
	}
	e, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var (
		_ func(context.Context, string, string) error                                                        = e.EndSession
		_ func(string, Reply) error                                                                          = e.Respond
		_ func(string, []event.Event) error                                                                  = e.Restore
		_ func(string, uint64) (checkpoint.Plan, error)                                                      = e.RewindPlan
		_ func(string) []checkpoint.Point                                                                    = e.RewindPoints
		_ func(context.Context, string, string) error                                                        = e.Submit
		_ func(context.Context, string, Input) error                                                         = e.SubmitInput
		_ func() <-chan event.Event                                                                          = e.Subscribe
		_ func(context.Context, string, uint64, RewindMode, checkpoint.Plan, []string) (RewindResult, error) = e.Rewind
	)
	_ = Reply{Allow: true, Remember: true, Network: true}
	_ = RewindResult{Files: []event.RewoundFile{}, Prompt: "", Note: ""}
	_ = []RewindMode{RewindCode, RewindConversation, RewindBoth}
	_ = []error{ErrAuditFailure, ErrUnknownPermission, ErrSessionActive, ErrTurnInProgress, ErrConversationUnavailable}
	_, _ = DefaultContextWindow, DefaultCompactionThreshold
	_, _ = DefaultMaxIterations, DefaultSystemPrompt
	in := Input{Text: "use the skill", Typed: "/resume a", Skill: "resume", SkillSHA256: "abc"}
	if err := e.SubmitInput(ctx, "s1", in); err != nil {
		t.Fatal(err)
	}
	if err := e.Restore("s2", nil); err != nil {
		t.Fatal(err)
	}
	_ = e.RewindPoints("s1")
	if _, err := e.RewindPlan("s1", 2); err != nil {
		t.Fatal(err)
	}
	if err := e.Respond("none", Reply{}); err == nil {
		t.Fatal("Respond to an unknown request succeeded")
	}
	if err := e.EndSession(ctx, "s1", "logout"); err != nil {
		t.Fatal(err)
	}
	// Input's skill fields are recorded in the UserMessage.
	um := last[event.UserMessagePayload](t, sink.all(), event.UserMessage)
	if um.Typed != in.Typed || um.Skill != in.Skill || um.SkillSHA256 != in.SkillSHA256 {
		t.Fatalf("UserMessage %+v does not record %+v", um, in)
	}
	// Agents set: the `agent` tool is offered and SessionStarted lists it.
	ss := last[event.SessionStartedPayload](t, sink.all(), event.SessionStarted)
	if !contains(ss.Tools, agents.ToolName) {
		t.Fatalf("SessionStarted tools %v lack %q", ss.Tools, agents.ToolName)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
