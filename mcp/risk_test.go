package mcp

import (
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moteur/moteur/effect"
)

func TestRiskFromAnnotations(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name string
		a    *mcpsdk.ToolAnnotations
		want effect.Risk
	}{
		{"no annotations", nil, effect.RiskWrite},
		{"empty", &mcpsdk.ToolAnnotations{}, effect.RiskWrite},
		{"read only", &mcpsdk.ToolAnnotations{ReadOnlyHint: true}, effect.RiskRead},
		{"read only, not destructive", &mcpsdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no}, effect.RiskRead},
		{"destructive", &mcpsdk.ToolAnnotations{DestructiveHint: &yes}, effect.RiskDestructive},
		{"not destructive", &mcpsdk.ToolAnnotations{DestructiveHint: &no}, effect.RiskWrite},
		{"contradictory: the stricter wins", &mcpsdk.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, effect.RiskDestructive},
	} {
		if got := riskOf(c.a); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
