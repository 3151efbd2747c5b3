package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// Mode is how much the agent may do without asking when no rule decides.
type Mode string

// Modes, from strictest to loosest. The zero value means AutoWrite.
const (
	// ReadOnly refuses every call that changes something.
	ReadOnly Mode = "read_only"
	// Confirm asks before every call that changes something.
	Confirm Mode = "confirm"
	// AutoWrite runs recoverable changes and asks before destructive ones.
	AutoWrite Mode = "auto_write"
)

// ErrUnknownMode is wrapped by ParseMode's error.
var ErrUnknownMode = errors.New("unknown permission mode")

// ParseMode reads a mode as written in a configuration file or on a command
// line. Case, surrounding blanks and `-` for `_` are forgiven; "" is the
// default, AutoWrite.
func ParseMode(s string) (Mode, error) {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_") {
	case "", string(AutoWrite):
		return AutoWrite, nil
	case string(Confirm):
		return Confirm, nil
	case string(ReadOnly):
		return ReadOnly, nil
	}
	return "", fmt.Errorf("%w %q (want read_only, confirm or auto_write)", ErrUnknownMode, s)
}

// looseness orders modes; a value that is no mode counts as the strictest,
// so that a corrupted setting can only take rights away.
func (m Mode) looseness() int {
	switch m {
	case Confirm:
		return 1
	case AutoWrite, "":
		return 2
	}
	return 0
}

// Stricter reports whether m lets the agent do less than o
// (read_only < confirm < auto_write). An organisation's minimum mode is
// enforced with it: if min.Stricter(chosen) { chosen = min }.
func (m Mode) Stricter(o Mode) bool { return m.looseness() < o.looseness() }

// Decision is what to do with a tool call.
type Decision int

// Decisions.
const (
	Allow Decision = iota // run it
	Ask                   // ask the user first
	Deny                  // refuse it
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// PermissionsConfig is what a Permissions is built from.
type PermissionsConfig struct {
	Rules Rules
	Mode  Mode
	// Floor is an organisation's min_mode: a hard floor under every
	// decision on a call that changes something, where Mode is only the
	// default for calls no rule covers. Allow rules come from files the
	// organisation does not control (a cloned project's among them), so
	// without a floor one allow rule would undo a read_only or confirm
	// policy. read_only: such calls are denied whatever the rules or
	// remembered answers say; confirm: an allow rule's Allow becomes Ask,
	// while a remembered answer still allows (the user confirmed it).
	// Mode is raised to Floor when looser. Zero: no floor.
	Floor Mode
	// DeniedTools are tool names (globs like mcp_*) an organisation forbids
	// outright: no rule, mode or remembered answer can allow them.
	DeniedTools []string
	// Root is the project root, an absolute path: path patterns are
	// relative to it; absolute argument paths inside it are made relative
	// before matching. Empty means no root: relative paths are matched as
	// they are and no absolute path is inside.
	Root string
}

// Request is one tool call to judge.
type Request struct {
	Session string
	Tool    string
	Risk    effect.Risk
	Args    json.RawMessage // the call's arguments (a JSON object)
	// Confirm, when set, is why this call needs the user's confirmation in
	// every mode (tools.Confirmer): no allow rule, mode or remembered
	// answer lets it run unasked, while a deny rule, the organisation's
	// DeniedTools or read_only still refuse it.
	Confirm string
}

// Verdict is the decision on a Request and what led to it.
type Verdict struct {
	Decision Decision
	// Rule is what decided, for logs and the audit trail:
	// `deny: write_file(secrets/**)`, `mode auto_write: destructive asks`,
	// `remembered for the session`, `org policy: denied tool`.
	Rule string
	// Reason is a sentence for the model and the user.
	Reason string
}

// Verdict.Rule values that are not rules.
const (
	RuleRemembered = "remembered for the session"
	RuleDeniedTool = "org policy: denied tool"
	RuleConfirm    = "always confirmed"
	RuleRefusedEnv = "refused environment variable"
)

// Permissions decides what the agent may do. The order is fixed: a deny
// (an organisation's DeniedTools or a deny rule) beats an ask rule, which
// beats an allow rule; a call no rule decides is left to the mode and the
// tool's risk:
//
//	risk         read_only  confirm  auto_write
//	read         allow      allow    allow
//	probe        allow      allow    allow
//	write        deny       ask      allow
//	destructive  deny       ask      ask
//	(unknown)    deny       ask      ask
//
// Probe calls (a web fetch, `git status`) look outside but change nothing,
// so even read_only allows them; what may leave the machine through them is
// Outbound's decision, not this one's. An unknown risk is treated as
// destructive.
//
// A call with several subjects (the commands of a compound shell line, a
// list of paths) is allowed by rules only if every subject is covered by an
// allow rule; one subject that meets a deny or ask rule decides for the
// whole call. A subject no allow rule covers counts with the call's risk.
//
// A remembered answer (Remember) turns what would be asked into an allow;
// it never overrides a deny, whether from the organisation, a deny rule or
// read_only.
//
// An organisation floor (PermissionsConfig.Floor) then bounds every call
// that is not read or probe: under a read_only floor it is denied, allow
// rules and remembered answers notwithstanding; under a confirm floor an
// allow rule only makes it asked, and the user's own answer, remembered
// for the session, is what lets it run without asking again.
//
// Check, Remember and Forget are safe for concurrent use.
type Permissions struct {
	mode        Mode
	floor       Mode // AutoWrite when there is none
	root        string
	deny        []*rule
	ask         []*rule
	allow       []*rule
	deniedTools []string

	mu     sync.RWMutex
	memory map[string]map[string]struct{} // session → remembered call keys
}

// NewPermissions checks the configuration and compiles its rules. Every
// malformed rule is reported, each as a *RuleError naming the rule, its
// list and why, joined into one error.
func NewPermissions(cfg PermissionsConfig) (*Permissions, error) {
	var errs []error
	mode, err := ParseMode(string(cfg.Mode))
	if err != nil {
		errs = append(errs, err)
	}
	floor, err := ParseMode(string(cfg.Floor))
	if err != nil {
		errs = append(errs, fmt.Errorf("floor: %w", err))
	}
	if floor.Stricter(mode) {
		// The floor is also the least the mode may be, so that a caller
		// that passed the floor but forgot to raise the mode still gets
		// the organisation's default for uncovered calls.
		mode = floor
	}
	p := &Permissions{mode: mode, floor: floor, memory: map[string]map[string]struct{}{}}
	if cfg.Root != "" {
		if !filepath.IsAbs(cfg.Root) {
			// A relative root would change meaning with the working
			// directory; better to refuse than to guess.
			errs = append(errs, fmt.Errorf("root %q is not an absolute path", cfg.Root))
		}
		p.root = filepath.Clean(cfg.Root)
	}
	for _, l := range []struct {
		d    Decision
		in   []string
		dest *[]*rule
	}{{Deny, cfg.Rules.Deny, &p.deny}, {Ask, cfg.Rules.Ask, &p.ask}, {Allow, cfg.Rules.Allow, &p.allow}} {
		for _, text := range l.in {
			r, err := parseRule(l.d, text)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			*l.dest = append(*l.dest, r)
		}
	}
	for _, t := range cfg.DeniedTools {
		name := strings.TrimSpace(t)
		if err := checkToolGlob(name); err != nil {
			errs = append(errs, &RuleError{List: "denied_tools", Rule: t, Err: fmt.Errorf("%w: %w", ErrMalformedRule, err)})
			continue
		}
		p.deniedTools = append(p.deniedTools, name)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("policy: permissions: %w", errors.Join(errs...))
	}
	return p, nil
}

// Mode returns the mode in force: the configured mode, raised to the
// floor when looser.
func (p *Permissions) Mode() Mode { return p.mode }

// Check decides one call.
func (p *Permissions) Check(req Request) Verdict {
	for _, g := range p.deniedTools {
		if doublestar.MatchUnvalidated(g, req.Tool) {
			return Verdict{
				Decision: Deny,
				Rule:     RuleDeniedTool,
				Reason:   fmt.Sprintf("The organisation's policy forbids the tool %s (denied tools: %s).", req.Tool, g),
			}
		}
	}
	subj := p.readSubjects(req.Args)
	if r, s := firstMatch(p.deny, req.Tool, subj.list); r != nil {
		return Verdict{Decision: Deny, Rule: r.label(), Reason: ruleReason(r, s, req.Tool, "forbids")}
	}
	if name := subj.refusedEnv; name != "" {
		return Verdict{
			Decision: Deny,
			Rule:     RuleRefusedEnv,
			Reason: fmt.Sprintf("The call sets the environment variable %s, which can make the command run other code or read another configuration; Moteur refuses it in every mode. "+
				"Set only ordinary variables (such as %s), or write the setting in the command itself, where the user sees it.", quoteClip(name), safeEnvList),
		}
	}
	// The floor comes after the deny rules, which keep their own label,
	// and before anything that could allow: no rule and no remembered
	// answer may take a change past a read_only organisation.
	floored := changesSomething(req.Risk)
	if floored && p.floor == ReadOnly {
		return Verdict{
			Decision: Deny,
			Rule:     floorRule(ReadOnly),
			Reason:   fmt.Sprintf("The organisation's policy (min_mode read_only) forbids every call that changes something, such as %s, whatever the rules allow.", req.Tool),
		}
	}
	if req.Confirm != "" {
		return p.confirmed(req)
	}
	var v Verdict
	if r, s := firstMatch(p.ask, req.Tool, subj.list); r != nil {
		v = Verdict{Decision: Ask, Rule: r.label(), Reason: ruleReason(r, s, req.Tool, "requires confirmation for")}
	} else if allowed, uncovered := p.allowedByRules(req.Tool, &subj); allowed != nil {
		if !floored || p.floor != Confirm {
			return *allowed
		}
		// A rule in a file is not the user's confirmation; only an answer
		// the user gave (remembered below) is.
		v = Verdict{
			Decision: Ask,
			Rule:     floorRule(Confirm),
			Reason:   fmt.Sprintf("The organisation's policy (min_mode confirm) requires confirmation for every change, even one the rule %q allows.", allowed.Rule),
		}
	} else {
		v = p.byMode(req, uncovered)
	}
	if v.Decision == Ask && !subj.unreadable() && p.remembered(req.Session, subj.key(req.Tool)) {
		return Verdict{
			Decision: Allow,
			Rule:     RuleRemembered,
			Reason:   "Allowed: the user allowed this call for the rest of the session.",
		}
	}
	return v
}

// confirmed decides a call that must be confirmed in every mode, once no
// deny rule and no read_only floor refused it: read_only refuses it too
// when it changes something, anything else asks.
func (p *Permissions) confirmed(req Request) Verdict {
	if changesSomething(req.Risk) && p.mode == ReadOnly {
		return Verdict{
			Decision: Deny,
			Rule:     fmt.Sprintf("mode %s: %s denied", p.mode, req.Risk),
			Reason:   fmt.Sprintf("In %s mode, %s calls are not allowed. %s", p.mode, req.Risk, req.Confirm),
		}
	}
	return Verdict{Decision: Ask, Rule: RuleConfirm, Reason: req.Confirm}
}

// floorRule is Verdict.Rule for a decision the organisation floor made.
func floorRule(m Mode) string { return "organisation min_mode " + string(m) }

// changesSomething reports whether a call of this risk is under the floor:
// write, destructive, or unknown (treated as destructive, as byMode does).
func changesSomething(r effect.Risk) bool {
	return r != effect.RiskRead && r != effect.RiskProbe
}

// firstMatch returns the first rule of list that applies to the call, and
// the subject it matched (nil for a bare tool rule).
func firstMatch(list []*rule, tool string, subj []subject) (*rule, *subject) {
	for _, r := range list {
		if !r.matchesTool(tool) {
			continue
		}
		if r.pattern == "" {
			return r, nil
		}
		for i := range subj {
			if r.matches(&subj[i], true) {
				return r, &subj[i]
			}
		}
	}
	return nil, nil
}

func ruleReason(r *rule, s *subject, tool, verb string) string {
	if s == nil {
		return fmt.Sprintf("The rule %q %s every call of %s.", r.label(), verb, tool)
	}
	return fmt.Sprintf("The rule %q %s %s on %s.", r.label(), verb, tool, s.describe())
}

// allowedByRules returns an Allow verdict when a bare allow rule names the
// tool or every subject is covered by some allow rule. Otherwise it returns
// the first subject left uncovered (nil when the call has no subject or
// could not be read), for the reason.
func (p *Permissions) allowedByRules(tool string, subj *subjects) (*Verdict, *subject) {
	var candidates []*rule
	for _, r := range p.allow {
		if !r.matchesTool(tool) {
			continue
		}
		if r.pattern == "" {
			return &Verdict{Decision: Allow, Rule: r.label(), Reason: fmt.Sprintf("Allowed by the rule %q.", r.label())}, nil
		}
		candidates = append(candidates, r)
	}
	var used []*rule
	covered := 0
	for i := range subj.list {
		s := &subj.list[i]
		if s.kind == subjUnreadable || s.parseErr != nil {
			return nil, s
		}
		if s.noop || s.reached {
			continue
		}
		var by *rule
		for _, r := range candidates {
			if r.matches(s, false) {
				by = r
				break
			}
		}
		if by == nil {
			return nil, s
		}
		covered++
		if !containsRule(used, by) {
			used = append(used, by)
		}
	}
	if covered == 0 {
		// No subject at all: a pattern cannot vouch for nothing.
		return nil, nil
	}
	labels := make([]string, len(used))
	for i, r := range used {
		labels[i] = r.text
	}
	list := strings.Join(labels, ", ")
	reason := fmt.Sprintf("Allowed by the rule %q.", "allow: "+list)
	if len(used) > 1 {
		reason = fmt.Sprintf("Allowed: every part is covered by the allow rules %s.", list)
	}
	return &Verdict{Decision: Allow, Rule: "allow: " + list, Reason: reason}, nil
}

func containsRule(rs []*rule, r *rule) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// byMode decides a call no rule decided, from the mode and the risk.
func (p *Permissions) byMode(req Request, uncovered *subject) Verdict {
	risk := req.Risk
	if !risk.Valid() {
		risk = "" // unknown: treated as destructive
	}
	var d Decision
	switch {
	case risk == effect.RiskRead || risk == effect.RiskProbe:
		d = Allow
	case p.mode == AutoWrite && risk == effect.RiskWrite:
		d = Allow
	case p.mode == ReadOnly || p.mode.looseness() == 0:
		d = Deny
	default:
		d = Ask
	}
	label := string(risk)
	if label == "" {
		label = "unknown risk"
	}
	verb := map[Decision]string{Allow: "allowed", Ask: "asks", Deny: "denied"}[d]
	v := Verdict{Decision: d, Rule: fmt.Sprintf("mode %s: %s %s", p.mode, label, verb)}
	what := fmt.Sprintf("%s calls", label)
	switch d {
	case Allow:
		v.Reason = fmt.Sprintf("In %s mode, %s are allowed.", p.mode, what)
	case Ask:
		v.Reason = fmt.Sprintf("In %s mode, %s need confirmation.", p.mode, what)
	default:
		v.Reason = fmt.Sprintf("In %s mode, %s are not allowed.", p.mode, what)
	}
	if d != Allow && uncovered != nil {
		switch {
		case uncovered.kind == subjUnreadable:
			v.Reason += fmt.Sprintf(" The arguments could not be read (%v), so no allow rule can cover them.", uncovered.parseErr)
		case uncovered.parseErr != nil:
			v.Reason += fmt.Sprintf(" The command could not be parsed (%v), so no allow rule can cover it.", uncovered.parseErr)
		case uncovered.computed != "":
			v.Reason += fmt.Sprintf(" No allow rule can cover %s: %s.", uncovered.describe(), uncovered.computed)
		case uncovered.kind == subjEnv || uncovered.kind == subjStdin:
			v.Reason += fmt.Sprintf(" No allow rule covers a call with %s.", uncovered.describe())
		case p.hasPatternAllow(req.Tool):
			v.Reason += fmt.Sprintf(" No allow rule covers %s.", uncovered.describe())
		}
	}
	return v
}

func (p *Permissions) hasPatternAllow(tool string) bool {
	for _, r := range p.allow {
		if r.pattern != "" && r.matchesTool(tool) {
			return true
		}
	}
	return false
}

// Remember records an "allow for the session" answer for this request:
// later requests of the same session with the same tool and the same
// subject(s) — the exact command line, the same normalised paths, the same
// URLs — are allowed without asking, unless a deny rule, the organisation's
// DeniedTools or read_only forbids them (a deny always wins). A request
// with several subjects is remembered only as a whole. A request whose
// arguments cannot be read is not remembered, nor one that must be
// confirmed every time (Request.Confirm).
func (p *Permissions) Remember(req Request) {
	subj := p.readSubjects(req.Args)
	if subj.unreadable() || req.Confirm != "" {
		return
	}
	key := subj.key(req.Tool)
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.memory[req.Session]
	if m == nil {
		m = map[string]struct{}{}
		p.memory[req.Session] = m
	}
	m[key] = struct{}{}
}

// Forget drops everything remembered for a session, at its end or when the
// user takes the answers back.
func (p *Permissions) Forget(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.memory, session)
}

func (p *Permissions) remembered(session, key string) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	_, ok := p.memory[session][key]
	return ok
}
