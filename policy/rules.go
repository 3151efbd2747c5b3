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
//   - a shell command (argument `command`): the words of each simple
//     command of the line, as bash reads them (quotes removed, blanks
//     collapsed: `git  status` and `'git' status` are git status). A `*`
//     that ends the pattern stands for any further arguments, on a word
//     boundary: `git status*` covers `git status` and `git status -s`,
//     not `git status2`. A `*` standing alone as a word stands for any
//     number of words (`go test * > test.log`); any other `*` matches any
//     run of characters inside one word (`npm run test:* *`). Without a
//     `*` the command must match exactly. An allow rule covers a command
//     that writes through a redirection (`> f`, `>> f`, `&> f`, but not
//     `2>&1` or `> /dev/null`) only when the pattern names the
//     redirection (contains `>`): `git status*` does not cover
//     `git status > f`. Deny and ask rules are read more widely, so that
//     they fail closed: they also meet the program a command reaches
//     through wrappers and paths (`/bin/rm`, `env rm`, `sudo rm`,
//     `xargs rm`, `bash -c 'rm …'`, `find -exec rm`), treat a word that
//     is only known at run time as matching any pattern word, and match
//     as a plain text glob too (`rm*` also meets `rmdir`).
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
	shell    []patWord // pattern as shell words, see shellPattern
	// namesRedir: the pattern holds a '>', so it may cover a command
	// that writes through a redirection.
	namesRedir bool
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
	r.shell = shellPattern(r.pattern)
	r.namesRedir = strings.Contains(r.pattern, ">")
	return r, nil
}

// patWord is one word of a shell pattern: a word glob, or any number of
// words.
type patWord struct {
	glob string // for starMatch, backslash escapes kept
	any  bool   // a lone `*`, or the `*` that ends the pattern
}

// shellPattern splits a pattern into words at unescaped blanks. A `*`
// that ends the pattern — alone (`git *`) or attached (`git status*`) —
// becomes an any-words token after a word boundary.
func shellPattern(pat string) []patWord {
	var words []patWord
	var cur strings.Builder
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		if cur.String() == "*" {
			words = append(words, patWord{any: true})
		} else {
			words = append(words, patWord{glob: cur.String()})
		}
		cur.Reset()
	}
	trailing := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat):
			cur.WriteByte(c)
			cur.WriteByte(pat[i+1])
			i++
		case c == ' ' || c == '\t' || c == '\n':
			flush()
		case c == '*' && i == len(pat)-1:
			trailing = true
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	if trailing {
		words = append(words, patWord{any: true})
	}
	return words
}

// matchWords matches a command's words against a shell pattern. wild,
// when set, marks words only known at run time, which match any word of
// the pattern (deny and ask rules). It runs in O(len(pat)·len(words)) at
// worst, like starMatch.
func matchWords(pat []patWord, words []string, wild []bool) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(words) {
		if p < len(pat) {
			if pat[p].any {
				starP, starI = p, i
				p++
				continue
			}
			if wild != nil && wild[i] || starMatch(pat[p].glob, words[i]) {
				p++
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
	for p < len(pat) && pat[p].any {
		p++
	}
	return p == len(pat)
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
		if !strict {
			for _, f := range s.allowForms {
				if (!f.redirs || r.namesRedir) && matchWords(r.shell, f.words, nil) {
					return true
				}
			}
			return false
		}
		for _, f := range s.denyForms {
			if matchWords(r.shell, f.words, f.wild) {
				return true
			}
		}
		for _, t := range s.denyTexts {
			if starMatch(r.pattern, t) {
				return true
			}
		}
		return false
	case subjEnv, subjStdin:
		// No rule names an environment variable or a stdin: they only
		// keep allow rules from covering the call (see addShell).
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
