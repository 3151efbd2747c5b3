package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/moteur/moteur/agentconfig"
	"github.com/moteur/moteur/agents"
	"github.com/moteur/moteur/agentstore"
	"github.com/moteur/moteur/config"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/skills"
	kbtools "github.com/moteur/moteur/tools/kb"
	"github.com/moteur/moteur/tools/web"
)

// A custom agent (Options.Agent) is seed 000's "Agent personnalisé": the
// settings a session runs with, on top of the configuration, which it can
// narrow but never loosen. How each field is honoured:
//
//   - model_id: the name of a configured provider, or the model of one,
//     puts that provider first; any other value is the model asked of the
//     first provider's server (its fallbacks keep their own models).
//   - temperature, max_completion_tokens: on every model request of the
//     loop and of the quick answer's generation.
//   - reasoning_effort, else thinking (true: auto; both unset: off), which
//     Options.ReasoningEffort overrides: off turns thinking off on those
//     requests; auto asks nothing (the server decides); another level is
//     asked of every one of them, except summaries and closing syntheses,
//     which think not, and each provider adjusts it to the levels its
//     model accepts (its reasoning_efforts), a note saying so.
//   - citation_enabled false: the knowledge section of the prompt asks
//     for no citation, and the quick answer's records none; the quick
//     answer's own prompt still asks for them.
//   - access_level: the session's mode; --mode may be stricter, not looser;
//     the organisation's min_mode narrows it (a note says so).
//   - max_iterations: the rounds of a turn (unlimited: the cap of 100);
//     Options.MaxIterations may lower it. llm_call_timeout: the stall
//     timeout of a stream.
//   - allowed_tools: the built-in tools offered (plan, files, shell,
//     knowledge, data, agent); [] none of them. MCP tools follow the MCP
//     selection and skills the skills selection.
//   - system_prompt: added after Moteur's prompt, whose rules prevail.
//   - kb_selection_mode: the bases the session may use (all, the listed
//     ones, none); Options.KnowledgeBases narrows within them.
//   - mcp_selection_mode, skills_selection_mode: which servers start and
//     which skills are offered, within the configuration's.

// ResolveAgent finds the agent ref names — a built-in or stored agent, by
// id or by name (agentstore.Resolve) — in the data directory of o. An
// unknown one is an *OptionError wrapping agentstore.ErrNotFound whose
// message lists the agents that exist.
func ResolveAgent(ctx context.Context, o Options, ref string) (agentconfig.Agent, error) {
	o, err := o.resolved()
	if err != nil {
		return agentconfig.Agent{}, err
	}
	lang := resolveLang(o.Lang, "", o.Env)
	db, err := DatabaseOf(o.Env, o.DataDir)
	if err != nil {
		return agentconfig.Agent{}, err
	}
	st, err := db.Agents(ctx)
	if err != nil {
		return agentconfig.Agent{}, err
	}
	defer st.Close()
	a, err := st.Resolve(ctx, ref, lang)
	if err == nil {
		return a, nil
	}
	if !errors.Is(err, agentstore.ErrNotFound) {
		return agentconfig.Agent{}, err
	}
	all, lerr := st.All(ctx, lang)
	if lerr != nil {
		return agentconfig.Agent{}, errors.Join(err, lerr)
	}
	return agentconfig.Agent{}, &OptionError{Option: "agent", Err: &translatedError{
		msg: i18n.Trf(lang, "%q: no such agent; the agents are: %s (moteur agents list)", ref, agentList(lang, all)),
		err: agentstore.ErrNotFound}}
}

// agentList names agents for a message: "id (name)", comma-separated.
func agentList(lang i18n.Lang, all []agentconfig.Agent) string {
	if len(all) == 0 {
		return i18n.Tr(lang, "none")
	}
	names := make([]string, len(all))
	for i, a := range all {
		names[i] = fmt.Sprintf("%s (%s)", a.ID, a.Name)
	}
	return strings.Join(names, ", ")
}

// prepareAgent is a copy of the agent with EnsureDefaults applied, checked:
// a stored agent that Validate refuses is an *OptionError naming its field.
func prepareAgent(a *agentconfig.Agent, lang i18n.Lang) (*agentconfig.Agent, error) {
	if a == nil {
		return nil, nil
	}
	out := *a
	out.Config = a.Config.Clone()
	out.Config.EnsureDefaults()
	if err := out.Config.Validate(); err != nil {
		return nil, &OptionError{Option: "agent", Err: fmt.Errorf("%s: %w", agentName(&out), err)}
	}
	return &out, nil
}

// agentName names an agent in messages: its name and its id.
func agentName(a *agentconfig.Agent) string {
	if a.Name == "" || a.Name == a.ID {
		return a.ID
	}
	return fmt.Sprintf("%s (%s)", a.Name, a.ID)
}

// Agent is the custom agent the settings run as, with its defaults filled
// in (nil: none). The caller may modify the copy it gets.
func (s *Settings) Agent() *agentconfig.Agent {
	if s.agent == nil {
		return nil
	}
	out := *s.agent
	out.Config = s.agent.Config.Clone()
	return &out
}

// Quick reports that the settings' agent is a quick-answer agent: it runs
// the quick answer (OpenQuick) even on the agent route, as seed 000
// downgrades it.
func (s *Settings) Quick() bool { return s.agent != nil && !s.agent.Config.IsAgentMode() }

// agentID is the id SessionStarted records ("": no agent).
func (s *Settings) agentID() string {
	if s.agent == nil {
		return ""
	}
	return s.agent.ID
}

// askedMode is the mode the options and the agent ask for ("": the
// configuration's) and the option to blame if the organisation refuses
// it. --mode may be stricter than the agent's access level, not looser.
func askedMode(asked policy.Mode, a *agentconfig.Agent, lang i18n.Lang) (policy.Mode, string, error) {
	if a == nil {
		return asked, "mode", nil
	}
	level, err := policy.ParseMode(a.Config.AccessLevel)
	if err != nil {
		return "", "", &OptionError{Option: "agent", Err: fmt.Errorf("%s: access_level: %w", agentName(a), err)}
	}
	switch {
	case asked == "":
		return level, "agent", nil
	case level.Stricter(asked):
		return "", "", &OptionError{Option: "mode", Err: errors.New(i18n.Trf(lang, "%s is looser than the access_level %s of the agent %s", asked, level, agentName(a)))}
	}
	return asked, "mode", nil
}

// modeRefusal says why the organisation refuses a mode.
func modeRefusal(mode, floor policy.Mode, path string, lang i18n.Lang) error {
	return &OptionError{Option: "mode", Err: errors.New(i18n.Trf(lang, "%s is looser than min_mode %s of the organisation policy %s", mode, floor, path))}
}

// agentProviders orders the providers for the agent's model_id: the
// provider of that name, else the first serving that model, goes first;
// another model_id is the model asked of the first provider's server. The
// slice is a copy; "" leaves the providers as they are.
func agentProviders(ps []config.Provider, model string) []config.Provider {
	if model == "" || len(ps) == 0 {
		return ps
	}
	out := slices.Clone(ps)
	i := slices.IndexFunc(out, func(p config.Provider) bool { return p.Name == model })
	if i < 0 {
		i = slices.IndexFunc(out, func(p config.Provider) bool { return p.Model == model })
	}
	if i < 0 {
		out[0].Model = model
		return out
	}
	p := out[i]
	out = slices.Delete(out, i, i+1)
	return slices.Insert(out, 0, p)
}

// maxIterations is the rounds of a turn: the agent's, lowered by the
// option when it asks for fewer.
func maxIterations(asked int, a *agentconfig.Agent) int {
	if a == nil {
		return asked
	}
	n := a.Config.EffectiveMaxIterations()
	if asked > 0 && asked < n {
		n = asked
	}
	return n
}

// requestOptions are the agent's options of every model request: its
// temperature, its output budget, and thinking off when its reasoning is.
// Settings.engine and OpenQuick then apply Options.ReasoningEffort and
// the level asked (effortProvider).
func requestOptions(a *agentconfig.Agent) (temperature *float64, maxTokens int, noThinking bool) {
	if a == nil {
		return nil, 0, false
	}
	t := a.Config.Temperature
	return &t, a.Config.MaxCompletionTokens, a.Config.Reasoning() == agentconfig.EffortOff
}

// reasoningEffort is the session's reasoning effort: Options'
// (checked by resolved), which wins, else the agent's, else none (""),
// which leaves the requests as they were before agents.
func (s *Settings) reasoningEffort() string {
	if e := s.opts.ReasoningEffort; e != "" {
		return e
	}
	if s.agent == nil {
		return ""
	}
	return s.agent.Config.Reasoning()
}

// citations reports whether the session's answers cite their sources:
// always without an agent, else as its citation_enabled says.
func (s *Settings) citations() bool { return s.agent == nil || s.agent.Config.Citations() }

// agentPrompt is the agent's system_prompt as a section after Moteur's
// prompt ("" when it has none): its rules stay in force.
func agentPrompt(l i18n.Lang, a *agentconfig.Agent) string {
	if a == nil || strings.TrimSpace(a.Config.SystemPrompt) == "" {
		return ""
	}
	head := fmt.Sprintf("Consignes de l'agent « %s » (elles complètent les règles ci-dessus, qui priment) :", a.Name)
	if l.Normalize() == i18n.EN {
		head = fmt.Sprintf("Instructions of the agent %q (they add to the rules above, which prevail):", a.Name)
	}
	return head + "\n" + strings.TrimSpace(a.Config.SystemPrompt)
}

// allowTool says which built-in tools the agent offers (nil: every one).
func allowTool(a *agentconfig.Agent) func(string) bool {
	if a == nil {
		return nil
	}
	allowed := a.Config.AllowedTools
	return func(name string) bool { return slices.Contains(allowed, name) }
}

// knowledgeToolNames are the tools the knowledge bases give an agent.
var knowledgeToolNames = []string{kbtools.SearchName, kbtools.ReadName, kbtools.ListName}

// unknownTools are the agent's allowed_tools that Moteur does not have:
// neither in the session's tools nor a tool it could have had (a knowledge
// tool without a base, a data tool without a table, the agent tool, a web
// tool, which the agent's web_search_enabled and the request switch on,
// not allowed_tools).
func unknownTools(a *agentconfig.Agent, have []string) []string {
	if a == nil {
		return nil
	}
	var out []string
	for _, name := range a.Config.AllowedTools {
		switch {
		case slices.Contains(have, name), slices.Contains(knowledgeToolNames, name), slices.Contains(dataToolNames, name),
			name == agents.ToolName, name == web.SearchName, name == web.FetchName:
			continue
		}
		out = append(out, name)
	}
	return out
}

// knowledgeSelection is which bases a session may use: all of them, or
// those of Bases (none: no base).
type knowledgeSelection struct {
	all   bool
	bases []string
}

// agentBases are the bases a session uses: requested (Options.KnowledgeBases)
// narrowed within what the agent allows. Without an agent, requested as
// given. all means every base of the store (requested empty, selection
// all).
func agentBases(requested []string, a *agentconfig.Agent, lang i18n.Lang) (knowledgeSelection, error) {
	if a == nil {
		return knowledgeSelection{bases: requested}, nil
	}
	c := a.Config
	switch c.KBSelectionMode {
	case agentconfig.SelectNone:
		if len(requested) > 0 {
			return knowledgeSelection{}, &OptionError{Option: "kb", Err: errors.New(i18n.Trf(lang, "%s: the agent %s uses no knowledge base (kb_selection_mode none)",
				strings.Join(requested, ", "), agentName(a)))}
		}
		return knowledgeSelection{}, nil
	case agentconfig.SelectSelected:
		for _, b := range requested {
			if !slices.Contains(c.KnowledgeBases, b) {
				return knowledgeSelection{}, &OptionError{Option: "kb", Err: errors.New(i18n.Trf(lang, "%s is not among the knowledge bases of the agent %s (%s)",
					b, agentName(a), strings.Join(c.KnowledgeBases, ", ")))}
			}
		}
		if len(requested) > 0 {
			return knowledgeSelection{bases: requested}, nil
		}
		return knowledgeSelection{bases: slices.Clone(c.KnowledgeBases)}, nil
	}
	if len(requested) > 0 {
		return knowledgeSelection{bases: requested}, nil
	}
	return knowledgeSelection{all: true}, nil
}

// agentSkills narrows the configuration's skills selection to the agent's:
// none offers none; selected, those of its list the configuration offers.
func agentSkills(sel skills.Selection, a *agentconfig.Agent) skills.Selection {
	if a == nil {
		return sel
	}
	c := a.Config
	switch c.SkillsSelectionMode {
	case agentconfig.SelectNone:
		return skills.Selection{Mode: skills.ModeNone}
	case agentconfig.SelectSelected:
		var names []string
		for _, n := range c.SelectedSkills {
			if sel.Mode == skills.ModeAll || sel.Mode == skills.ModeSelected && slices.Contains(sel.Names, n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return skills.Selection{Mode: skills.ModeNone}
		}
		return skills.Selection{Mode: skills.ModeSelected, Names: names}
	}
	return sel
}

// agentMCP says which MCP servers the agent starts: none, every one, or
// those named (ok false: none at all).
func agentMCP(a *agentconfig.Agent) (keep func(name string) bool, ok bool) {
	if a == nil {
		return func(string) bool { return true }, true
	}
	c := a.Config
	switch c.MCPSelectionMode {
	case agentconfig.SelectNone:
		return nil, false
	case agentconfig.SelectSelected:
		return func(name string) bool { return slices.Contains(c.MCPServices, name) }, true
	}
	return func(string) bool { return true }, true
}
