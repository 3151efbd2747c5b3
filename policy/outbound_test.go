package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/llm"
)

func outbound(t *testing.T, cfg OutboundConfig) *Outbound {
	t.Helper()
	o, err := NewOutbound(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

var mistral = Destination{Provider: "mistral", Endpoint: "https://api.mistral.ai/v1"}

func TestOutboundHosts(t *testing.T) {
	local := Destination{Provider: "ollama", Endpoint: "http://127.0.0.1:11434/v1", Local: true}
	inproc := Destination{Provider: "scripted"}
	for _, tc := range []struct {
		name string
		cfg  OutboundConfig
		dst  Destination
		rule string // "" : allowed
	}{
		{"no rules", OutboundConfig{}, mistral, ""},
		{"org allows", OutboundConfig{OrgHosts: hostmatch.MustParse("api.mistral.ai")}, mistral, ""},
		{"org refuses", OutboundConfig{OrgHosts: hostmatch.MustParse("*.corp.example"), OrgPath: "/etc/moteur/policy.yaml"}, mistral, "organisation policy /etc/moteur/policy.yaml"},
		{"allowlist refuses", OutboundConfig{Allowlists: []hostmatch.List{hostmatch.MustParse("api.openai.com")}}, mistral, "allowlist"},
		{"every allowlist must hold it", OutboundConfig{Allowlists: []hostmatch.List{hostmatch.MustParse("api.mistral.ai"), hostmatch.MustParse("127.0.0.1")}}, mistral, "allowlist"},
		{"restricted without allowlist", OutboundConfig{RequireAllowlist: true}, mistral, "profile restricted"},
		{"restricted, local is fine", OutboundConfig{RequireAllowlist: true}, local, ""},
		{"airgapped", OutboundConfig{LocalOnly: true}, mistral, "profile airgapped"},
		{"airgapped, local", OutboundConfig{LocalOnly: true}, local, ""},
		{"in-process sends nothing", OutboundConfig{LocalOnly: true, OrgHosts: hostmatch.MustParse("x.example")}, inproc, ""},
	} {
		err := outbound(t, tc.cfg).Check(tc.dst, []llm.Message{{Role: llm.RoleUser, Content: "bonjour"}})
		switch {
		case tc.rule == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.rule != "":
			var r *Refusal
			if !errors.As(err, &r) || !errors.Is(err, ErrRefused) || !strings.HasPrefix(r.Rule, tc.rule) {
				t.Errorf("%s: got %v, want a refusal by %q", tc.name, err, tc.rule)
			}
		}
	}
}

func TestOutboundMarkings(t *testing.T) {
	c, err := classify.New(classify.Rules{Markings: []string{"PROJET ALPHA"}})
	if err != nil {
		t.Fatal(err)
	}
	o := outbound(t, OutboundConfig{Classifier: c})
	for name, msgs := range map[string][]llm.Message{
		"built-in in user text":    {{Role: llm.RoleUser, Content: "Document DIFFUSION RESTREINTE"}},
		"user rule in a result":    {{Role: llm.RoleTool, Content: "rapport PROJET ALPHA"}},
		"marking in a call's args": {{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Arguments: `{"q":"TLP:RED"}`}}}},
	} {
		if err := o.Check(mistral, msgs); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: not refused (%v)", name, err)
		}
		if err := o.Check(Destination{Provider: "local", Endpoint: "http://127.0.0.1/v1", Local: true}, msgs); err != nil {
			t.Errorf("%s: refused for a local provider: %v", name, err)
		}
	}
	remote := []llm.Message{{Role: llm.RoleAssistant, Content: "DIFFUSION RESTREINTE", Remote: true}}
	if err := o.Check(mistral, remote); err != nil {
		t.Errorf("a remote provider's own answer was rechecked: %v", err)
	}
	if err := o.Check(mistral, []llm.Message{{Role: llm.RoleUser, Content: "le secret professionnel"}}); err != nil {
		t.Errorf("ordinary prose refused: %v", err)
	}
}
