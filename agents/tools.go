package agents

import (
	"fmt"
	"strings"

	"github.com/moteur/moteur/hooks"
)

// toolList reads `tools:` or `disallowedTools:`: a comma-separated string
// or a list of strings, Claude Code's names or Moteur's. An entry that
// cannot be resolved is reported and left out (for `tools:` the agent gets
// fewer tools; for `disallowedTools:` there is nothing to remove). A value
// of the wrong type skips the agent: guessing could widen an allowlist.
func (p *parser) toolList(r *report, key string, v any) []string {
	var entries []string
	switch t := v.(type) {
	case nil:
		if key == "tools" {
			r.add(key, ErrBadField, false, "tools is empty: the agent gets no tools (remove the key to give it every tool of its parent)")
		}
		return nil
	case string:
		for _, e := range strings.Split(t, ",") {
			entries = append(entries, e)
		}
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				r.add(key, ErrBadField, true, fmt.Sprintf("%s: every entry must be a tool name, not %s", key, kind(e)))
				return nil
			}
			entries = append(entries, s)
		}
	default:
		r.add(key, ErrBadField, true, fmt.Sprintf("%s must be a comma-separated string or a list, not %s", key, kind(v)))
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		name, err := p.resolve(e)
		if err != nil {
			what := "left out"
			if key == "tools" {
				what = "left out: the agent does not get it"
			}
			r.add(key, err, false, fmt.Sprintf("%q: %s; %s", e, detail(err, e), what))
			continue
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// resolve maps one entry to a Moteur tool of the session.
func (p *parser) resolve(e string) (string, error) {
	if strings.ContainsAny(e, "()") {
		return "", ErrToolPattern
	}
	name := e
	if p.tools != nil && p.tools[e] {
		return e, nil
	}
	if m, ok := hooks.MoteurToolName(e); ok {
		name = m
	} else if p.cfg.MapTool != nil {
		if m, ok := p.cfg.MapTool(e); ok {
			name = m
		}
	}
	if p.tools != nil && !p.tools[name] {
		return name, ErrUnknownTool
	}
	return name, nil
}

func detail(err error, e string) string {
	if err == ErrToolPattern {
		return "argument patterns such as Bash(git *) are not supported (write permission rules for that)"
	}
	if m, ok := hooks.MoteurToolName(e); ok {
		return fmt.Sprintf("Claude Code's %s is Moteur's %s, which this session does not have", e, m)
	}
	return "no such tool in this session"
}

// ToolsFor returns the tools of a child of the main agent running a:
// parent's tools (in their order), narrowed by a's allowlist when it has
// one, without a's denied tools, and without the `agent` tool unless
// nesting is configured (Config.MaxDepth > 1). It never returns a tool
// the parent lacks.
func (c *Catalog) ToolsFor(a Agent, parent []string) []string {
	return c.ToolsAt(a, parent, 1)
}

// ToolsAt is ToolsFor for a child at depth (1: a child of the main agent,
// 2: a grandchild, …); the `agent` tool is kept only when depth is below
// the catalog's MaxDepth, so that nesting stops there.
func (c *Catalog) ToolsAt(a Agent, parent []string, depth int) []string {
	allow := map[string]bool(nil)
	if a.Tools != nil {
		allow = set(a.Tools)
	}
	deny := set(a.Denied)
	nest := depth < c.MaxDepth()
	out := []string{}
	seen := map[string]bool{}
	for _, t := range parent {
		switch {
		case seen[t], deny[t], allow != nil && !allow[t], t == ToolName && !nest:
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// MaxDepth is how many levels of sub-agents may run below the main agent
// (at least 1).
func (c *Catalog) MaxDepth() int {
	if c == nil || c.maxDepth < 1 {
		return 1
	}
	return c.maxDepth
}
