package orgpolicy

import (
	"errors"
	"testing"

	"github.com/moteur/moteur/hostmatch"
	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/profile"
)

// TestOutbound: the check a policy builds refuses a host outside its list
// and a marked message, and without a policy only the markings refuse.
func TestOutbound(t *testing.T) {
	hosts, err := hostmatch.Parse([]string{"api.mistral.ai"})
	if err != nil {
		t.Fatal(err)
	}
	pol := &Policy{Path: "/etc/moteur/policy.yaml", AllowedHosts: hosts}
	out, err := pol.Outbound(nil, profile.Get(profile.Standard), nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := []llm.Message{{Role: llm.RoleUser, Content: "bonjour"}}
	if err := out.Check(policy.Destination{Provider: "p", Endpoint: "https://api.mistral.ai/v1"}, msg); err != nil {
		t.Fatalf("a host of the policy refused: %v", err)
	}
	if err := out.Check(policy.Destination{Provider: "p", Endpoint: "https://api.example.com/v1"}, msg); !errors.Is(err, policy.ErrRefused) {
		t.Fatalf("a host outside the policy: %v", err)
	}
	none, err := (*Policy)(nil).Outbound(nil, profile.Get(profile.Standard), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := none.Check(policy.Destination{Provider: "p", Endpoint: "https://api.example.com/v1"}, msg); err != nil {
		t.Fatalf("no policy: %v", err)
	}
	marked := []llm.Message{{Role: llm.RoleUser, Content: "DIFFUSION RESTREINTE"}}
	if err := none.Check(policy.Destination{Provider: "p", Endpoint: "https://api.example.com/v1"}, marked); !errors.Is(err, policy.ErrRefused) {
		t.Fatalf("a marked message without a policy: %v", err)
	}
}
