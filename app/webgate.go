package app

import (
	"context"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools/web"
)

// webGate is the web tools' outbound check (web.Gate) over the session's
// policy.Outbound: a search query or a fetched URL is a send like a model
// request, so it passes the same organisation hosts, allowlists and
// profiles, and a query or URL carrying a marking goes only to a receiver
// declared local. Each refusal is the *policy.Refusal that names its rule.
type webGate struct {
	out *policy.Outbound
}

// CheckWeb implements web.Gate.
func (g webGate) CheckWeb(_ context.Context, s web.Send) error {
	dst := policy.Destination{Provider: "web_" + s.Kind, Endpoint: s.Host, Local: s.Local}
	return g.out.Check(dst, []llm.Message{{Role: llm.RoleUser, Content: s.Text}})
}
