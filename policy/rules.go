package policy

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rules are the user's and the organisation's permission rules, one list per
// decision. Each rule is `tool` (every call of the tool) or `tool(pattern)`;
// tool may be a glob (`mcp_*`, `*`). How pattern is matched depends on what
// the call's arguments hold (see Permissions):
//
//   - a shell command (argument `command`): a glob over each simple command
//     of the line in which only `*` is special and matches any run of
//     characters: `git status*`, `npm run test*`. Without a `*` the command
//     must match exactly.
//   - a path (`path`, `file_path`, `paths`): a doublestar glob relative to
//     the project root (`src/**`, `**/*.env`), or absolute (`/etc/**`).
//   - a URL (`url`, `urls`, `items[].url`): `domain:example.org` (that host
//     and its subdomains) or a doublestar glob over the whole URL
//     (`https://api.example.org/v1/**`).
//   - anything else: a glob in which `*` matches any run of characters,
//     tried against each top-level string argument.
//
// A backslash escapes the next character in every kind of pattern; `[`,
// `{` and `?` are glob syntax for paths and URLs, so a pattern must be a
// valid doublestar glob whatever it is used for.
type Rules struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// ErrMalformedRule is wrapped by every *RuleError.
var ErrMalformedRule = errors.New("malformed rule")

// RuleError reports a rule that cannot be used, with the list it is in, so
// that a configuration screen can point at it.
type RuleError struct {
	List string // "allow", "ask", "deny" or "denied_tools"
	Rule string // the rule as written
	Err  error  // why; wraps ErrMalformedRule
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("%s rule %q: %v", e.List, e.Rule, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

func malformed(list Decision, text, format string, args ...any) error {
	return &RuleError{
		List: list.String(),
		Rule: text,
		Err:  fmt.Errorf("%w: %s", ErrMalformedRule, fmt.Sprintf(format, args...)),
	}
}

// rule is a parsed rule, ready to match.
type rule struct {
	list     Decision // the list the rule came from
	text     string   // the rule as written, trimmed
	tool     string   // tool name or glob
	toolGlob bool
	pattern  string // "" for a bare `tool` rule
	lower    string // pattern in lower case, for case-insensitive deny/ask matching
	domain   string // host of a `domain:` rule, lower case
	pathPat  string // pattern as a path glob: without a leading "./"
	pathLow  string
}

// label is how a verdict names the rule: `deny: write_file(secrets/**)`.
func (r *rule) label() string { return r.list.String() + ": " + r.text }

func parseRule(list Decision, raw string) (*rule, error) {
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil, malformed(list, raw, "empty rule")
	}
	r := &rule{list: list, text: text, tool: text}
	if open := strings.IndexByte(text, '('); open >= 0 {
		if !strings.HasSuffix(text, ")") {
			return nil, malformed(list, raw, `missing closing ")"`)
		}
		r.tool = strings.TrimSpace(text[:open])
		r.pattern = strings.TrimSpace(text[open+1 : len(text)-1])
		if r.pattern == "" {
			return nil, malformed(list, raw, "empty pattern (write the tool name alone to cover every call)")
		}
	} else if strings.ContainsRune(text, ')') {
		return nil, malformed(list, raw, `")" without "("`)
	}
	if err := checkToolGlob(r.tool); err != nil {
		return nil, malformed(list, raw, "%v", err)
	}
	r.toolGlob = strings.ContainsAny(r.tool, `*?[{\`)
	if r.pattern == "" {
		return r, nil
	}
	if host, ok := strings.CutPrefix(r.pattern, "domain:"); ok {
		d, err := parseDomain(host)
		if err != nil {
			return nil, malformed(list, raw, "%v", err)
		}
		r.domain = d
		return r, nil
	}
	if !doublestar.ValidatePattern(r.pattern) {
		return nil, malformed(list, raw, "invalid glob %q (unbalanced [ or {, or a trailing backslash; escape literal characters with \\)", r.pattern)
	}
	r.lower = strings.ToLower(r.pattern)
	r.pathPat = strings.TrimPrefix(r.pattern, "./")
	r.pathLow = strings.ToLower(r.pathPat)
	return r, nil
}

func checkToolGlob(tool string) error {
	switch {
	case tool == "":
		return errors.New("missing tool name")
	case strings.ContainsAny(tool, " \t\r\n()"):
		return fmt.Errorf("tool name %q contains a blank or a parenthesis", tool)
	case !doublestar.ValidatePattern(tool):
		return fmt.Errorf("invalid tool glob %q", tool)
	}
	return nil
}

// parseDomain checks the host of a `domain:` rule. Wildcards are refused
// because subdomains are always included; a `*.example.org` would suggest
// that example.org itself is not.
func parseDomain(host string) (string, error) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if h == "" {
		return "", errors.New("domain: needs a host name")
	}
	if net.ParseIP(strings.Trim(h, "[]")) != nil {
		return strings.Trim(h, "[]"), nil
	}
	if !validHost(h) {
		return "", fmt.Errorf("domain:%s is not a host name (no scheme, port, path or wildcard; subdomains are included)", host)
	}
	return h, nil
}

// validHost accepts the DNS names a rule can be written for: ASCII labels
// of letters, digits, '-' and '_', none empty.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

func (r *rule) matchesTool(name string) bool {
	if !r.toolGlob {
		return r.tool == name
	}
	return doublestar.MatchUnvalidated(r.tool, name)
}

// matches reports whether the rule's pattern matches one subject. strict
// is set for deny and ask rules, which fail closed: they also match
// case-insensitively (a case-insensitive file system must not be a way
// round `secrets/**`), see every form of a shell command, and match
// arguments that could not be read. Allow rules match exactly.
func (r *rule) matches(s *subject, strict bool) bool {
	switch s.kind {
	case subjUnreadable:
		return strict
	case subjShell:
		if r.domain != "" {
			return false
		}
		forms := s.allowForms
		if strict {
			forms = s.denyForms
		}
		for _, f := range forms {
			if starMatch(r.pattern, f) {
				return true
			}
		}
		return false
	case subjPath:
		if r.domain != "" {
			return false
		}
		if !strict {
			// Outside the root nothing is allowed by a rule; see pathSubject.
			return s.inside && (doublestar.MatchUnvalidated(r.pathPat, s.rel) ||
				s.abs != "" && strings.HasPrefix(r.pathPat, "/") && doublestar.MatchUnvalidated(r.pathPat, s.abs))
		}
		for _, name := range [2]string{s.rel, s.abs} {
			if name != "" && (doublestar.MatchUnvalidated(r.pathPat, name) ||
				doublestar.MatchUnvalidated(r.pathLow, strings.ToLower(name))) {
				return true
			}
		}
		return false
	case subjURL:
		if r.domain != "" {
			if !s.hostOK {
				return strict
			}
			return s.host == r.domain || strings.HasSuffix(s.host, "."+r.domain)
		}
		if doublestar.MatchUnvalidated(r.pattern, s.text) {
			return true
		}
		return strict && doublestar.MatchUnvalidated(r.lower, strings.ToLower(s.text))
	case subjString:
		return r.domain == "" && starMatch(r.pattern, s.text)
	}
	return false
}

// starMatch matches s against a pattern in which `*` matches any run of
// bytes (newlines included) and a backslash makes the next byte literal.
// It runs in O(len(pat)·len(s)) at worst, without recursion, so a hostile
// command cannot make it blow up.
func starMatch(pat, s string) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pat) {
			c, width := pat[p], 1
			if c == '*' {
				starP, starI = p, i
				p++
				continue
			}
			if c == '\\' && p+1 < len(pat) {
				c, width = pat[p+1], 2
			}
			if c == s[i] {
				p += width
				i++
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP+1, starI
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}
