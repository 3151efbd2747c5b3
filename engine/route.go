package engine

import (
	"fmt"
	"net/url"

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/routing"
)

// candidates are the providers this turn may send to, in order: the
// router's (the local ones only once the session is sensitive), or the one
// provider of Deps.
func (t *turn) candidates() []routing.Candidate {
	if r := t.e.deps.Router; r != nil {
		return t.preferModel(r.Candidates(t.s.sensitive()))
	}
	c := single(t.e.deps.Provider)
	if t.s.sensitive() && !c.Local {
		// A session made sensitive elsewhere (restored from a process that
		// had a local provider, or a quick answer over classified
		// passages) goes to no remote provider, even one alone.
		return nil
	}
	return []routing.Candidate{c}
}

// preferModel puts first, for a sub-agent whose file names a model
// (agents.Agent.Model), the candidates that serve that model; the others
// stay after them as fallbacks, in their order. The candidates are the
// router's, already narrowed for a sensitive session, so a model never
// takes a child where its parent may not send.
func (t *turn) preferModel(cands []routing.Candidate) []routing.Candidate {
	if t.child == nil || t.child.agent.Model == "" || t.child.agent.Model == "inherit" {
		return cands
	}
	want := t.child.agent.Model
	out := make([]routing.Candidate, 0, len(cands))
	for _, c := range cands {
		if c.Provider.Model() == want {
			out = append(out, c)
		}
	}
	for _, c := range cands {
		if c.Provider.Model() != want {
			out = append(out, c)
		}
	}
	return out
}

// single describes a provider used without a router.
func single(p provider.Provider) routing.Candidate {
	return routing.Candidate{Provider: p, Endpoint: endpointOf(p), Local: isLocal(p)}
}

// defaultCandidate is the provider a session starts with.
func (e *Engine) defaultCandidate() routing.Candidate {
	if e.deps.Router != nil {
		return e.deps.Router.Default()
	}
	return single(e.deps.Provider)
}

// endpointOf is where a provider sends, through an optional Endpoint
// method; a provider without one runs in the process.
func endpointOf(p provider.Provider) string {
	if ep, ok := p.(interface{ Endpoint() string }); ok {
		return ep.Endpoint()
	}
	return ""
}

func destination(c routing.Candidate) policy.Destination {
	return policy.Destination{Provider: c.Provider.Name(), Endpoint: c.Endpoint, Local: c.Local}
}

// use makes c the session's current provider, recording the switch and,
// under a profile with jurisdictions, warning once per session about a
// provider outside them.
func (t *turn) use(c routing.Candidate, cause error) error {
	cur := t.current()
	if cur.Provider != c.Provider {
		reason := "preferred provider"
		switch {
		case cause != nil:
			reason = "fallback after: " + cause.Error()
		case t.s.sensitive() && c.Local:
			reason = "the session is sensitive: local provider"
		}
		*cur = c
		_, err := t.emit(event.ProviderSelected, event.ProviderSelectedPayload{
			Provider: c.Provider.Name(), Model: c.Provider.Model(), Local: c.Local, Reason: reason,
		})
		if err != nil {
			return err
		}
	}
	if !c.Local && c.Endpoint != "" && t.e.profile.OutsideJurisdiction(hostOf(c.Endpoint)) && t.s.warned.CompareAndSwap(false, true) {
		_, err := t.emit(event.Warning, event.WarningPayload{Kind: "jurisdiction", Message: fmt.Sprintf(
			"%s sends to %s, outside the jurisdictions the %s profile allows", c.Provider.Name(), hostOf(c.Endpoint), t.e.profile.Name)})
		return err
	}
	return nil
}

// classify makes the session sensitive when text carries a marking and a
// local provider exists to take it; without one, Outbound refuses the send
// instead.
func (t *turn) classify(text, source string) {
	if !t.classifies() {
		return
	}
	m, ok := t.e.outbound.Classify(text)
	if !ok {
		return
	}
	t.sensitize(m.Marking, source)
}

// classifies reports whether classify may record anything: a session that
// is already sensitive, or has no local provider to keep to, has nothing
// to learn from a marking.
func (t *turn) classifies() bool {
	return t.e.deps.Router != nil && !t.s.sensitive() && t.e.deps.Router.Local() != nil
}

// classifiedResult makes the session sensitive for a result whose content
// is classified without a marking in its text (a document under a
// classified path), whether or not a local provider exists: no text check
// could stop it later, so only the session's sensitivity keeps it from
// remote providers.
func (t *turn) classifiedResult(rule, source string) {
	if rule == "" || t.s.sensitive() {
		return
	}
	t.sensitize(rule, source)
}

func (t *turn) sensitize(marking, source string) {
	_, _ = t.emit(event.SessionClassified, event.SessionClassifiedPayload{Marking: marking, Source: source})
}

func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		return u.Hostname()
	}
	return endpoint
}
