package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/moteur/moteur/effect"

	"github.com/moteur/moteur/llm"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/tools/web"
)

// webGate is the web tools' outbound check (web.Gate) over the session's
// policy.Outbound: a search query or a fetched URL is a send like a model
// request, so it passes the same organisation hosts, allowlists and
// profiles, and a query or URL carrying a marking goes only to a receiver
// declared local. A sensitive session (policy.SensitiveFrom) sends nothing
// to a receiver not declared local, marked or not: a classified term in a
// query leaks as much as in a prompt. Every URL requested, each redirect
// included, is also held to the deny rules on web_fetch
// (web_fetch(domain:example.org)), and a redirect to those the ask rules
// cover is refused: the call was judged on the URL it named, and a
// redirect must not lead where a rule forbids or would have asked. Each refusal is the
// *policy.Refusal that names its rule.
type webGate struct {
	out   *policy.Outbound
	perms *policy.Permissions // nil: no rule (tests)
}

// CheckWeb implements web.Gate.
func (g webGate) CheckWeb(ctx context.Context, s web.Send) error {
	dst := policy.Destination{Provider: "web_" + s.Kind, Endpoint: s.Host, Local: s.Local}
	if err := g.out.Check(dst, []llm.Message{{Role: llm.RoleUser, Content: s.Text}}); err != nil {
		return err
	}
	if err := g.denied(s); err != nil {
		return err
	}
	if policy.SensitiveFrom(ctx) && !s.Local {
		what := "the query"
		if s.Kind == web.SendFetch {
			what = "the URL"
		}
		return &policy.Refusal{Rule: "sensitive session",
			Reason: fmt.Sprintf("the session holds classified content, so %s goes only to a receiver declared local, and %s is not", what, s.Host)}
	}
	return nil
}

// denied refuses a URL a deny rule on web_fetch covers.
func (g webGate) denied(s web.Send) error {
	if s.Kind != web.SendFetch || g.perms == nil {
		return nil
	}
	args, err := json.Marshal(map[string]string{"url": s.Text})
	if err != nil {
		return err
	}
	v := g.perms.Check(policy.Request{Tool: web.FetchName, Risk: effect.RiskRead, Args: args})
	switch {
	case v.Decision == policy.Deny:
		return &policy.Refusal{Rule: v.Rule, Reason: v.Reason}
	case v.Decision == policy.Ask && s.Redirect:
		// Nobody can be asked in the middle of a fetch: the model can
		// fetch that URL itself, and that call is asked about.
		return &policy.Refusal{Rule: v.Rule, Reason: fmt.Sprintf("the page redirected to %s, which needs the user's approval: fetch that URL itself", s.Text)}
	}
	return nil
}
