package hooks

import (
	"fmt"
	"regexp"
)

// matcher is a group's compiled matcher. Like Claude Code's, it is a
// regular expression over the whole name ("Edit|Write", "mcp__.*"); empty
// or "*" matches everything.
type matcher struct {
	all bool
	src string
	re  *regexp.Regexp
}

func compileMatcher(s string) (*matcher, error) {
	if s == "" || s == "*" {
		return &matcher{all: true}, nil
	}
	re, err := regexp.Compile(`^(?:` + s + `)$`)
	if err != nil {
		return nil, fmt.Errorf("matcher %q is not a valid regular expression: %w", s, err)
	}
	return &matcher{src: s, re: re}, nil
}

func (m *matcher) match(name string) bool { return m.all || m.re.MatchString(name) }

// view is how a hook sees a tool call: in Claude Code's names and shape,
// or in Moteur's.
type view int

const (
	viewNone   view = iota // the hook does not match
	viewMoteur             // Moteur's tool name and arguments
	viewClaude             // Claude Code's tool name and tool_input
)

// toolView says whether m matches a call of the Moteur tool moteur and in
// which shape the hook sees it. A matcher that matches the Claude Code
// name of the tool (edit_file: Edit or MultiEdit) sees Claude Code's shape
// — wildcards included, so that a script written for Claude Code that
// tests tool_name == "Bash" works unchanged; one that matches only
// Moteur's name sees Moteur's.
func (m *matcher) toolView(moteur string) view {
	if _, ok := ClaudeToolName(moteur); ok {
		for c, mt := range claudeToMoteur {
			if mt == moteur && m.match(c) {
				return viewClaude
			}
		}
	}
	if m.match(moteur) {
		return viewMoteur
	}
	return viewNone
}
