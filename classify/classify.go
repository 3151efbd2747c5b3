package classify

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rules are an organisation's own classification rules, on top of the
// built-in markings (which always apply).
type Rules struct {
	// Paths are doublestar globs ("confidential/**", "**/*.secret.md") with
	// "/" separators, relative to the project root or absolute
	// ("/srv/dossiers/**"). A path is classified when it, or any directory
	// above it, matches: "confidential" classifies everything inside
	// confidential/ too, so that a directory marked classified cannot leak
	// through its contents.
	Paths []string
	// Markings are regular expressions (RE2 syntax), used as given: they are
	// case-sensitive unless they start with "(?i)".
	Markings []string
}

// Match describes a detection.
type Match struct {
	// Marking is the text as found ("DIFFUSION RESTREINTE", "TLP:AMBER"),
	// or the path as given to Path.
	Marking string
	// Rule names what matched: "builtin:fr-dr", "marking:PROJET ALPHA",
	// "path:confidential/**".
	Rule string
}

// Classifier applies built-in markings and compiled Rules. The nil
// *Classifier applies the built-in markings only and classifies no path.
type Classifier struct {
	markings []userMarking
	globs    []userGlob
	fold     bool // case-insensitive paths (case-insensitive file systems)
}

type userMarking struct {
	re   *regexp.Regexp
	rule string
}

type userGlob struct {
	pattern string // cleaned, "/" separated, lower-cased when fold
	abs     bool
	rule    string
}

// New compiles r. Every invalid regular expression or glob is reported,
// each naming it and why. The built-in markings apply even with empty Rules.
func New(r Rules) (*Classifier, error) {
	c := &Classifier{fold: runtime.GOOS == "darwin" || runtime.GOOS == "windows"}
	var errs []error
	for _, expr := range r.Markings {
		m, err := compileMarking(expr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.markings = append(c.markings, m)
	}
	for _, g := range r.Paths {
		ug, err := compileGlob(g, c.fold)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.globs = append(c.globs, ug)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

func compileMarking(expr string) (userMarking, error) {
	if strings.TrimSpace(expr) == "" {
		return userMarking{}, fmt.Errorf("classify: marking %q: empty expression", expr)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return userMarking{}, fmt.Errorf("classify: marking %q: invalid regular expression: %w", expr, err)
	}
	// An expression that matches the empty string ("a*", "(?i)x?") matches
	// every text, which would classify everything: surely a mistake.
	if re.MatchString("") {
		return userMarking{}, fmt.Errorf("classify: marking %q: matches the empty string, so every text would be classified", expr)
	}
	return userMarking{re: re, rule: "marking:" + expr}, nil
}

var errBadGlob = errors.New("invalid glob")

func compileGlob(g string, fold bool) (userGlob, error) {
	if strings.TrimSpace(g) == "" {
		return userGlob{}, fmt.Errorf("classify: path %q: empty glob", g)
	}
	if !doublestar.ValidatePattern(g) {
		return userGlob{}, fmt.Errorf("classify: path %q: %w (check brackets, braces and trailing backslashes)", g, errBadGlob)
	}
	abs := strings.HasPrefix(g, "/") || filepath.IsAbs(filepath.FromSlash(g))
	p := path.Clean(filepath.ToSlash(g))
	if !abs && (p == ".." || strings.HasPrefix(p, "../")) {
		return userGlob{}, fmt.Errorf("classify: path %q: a relative glob cannot leave the project root; write an absolute glob", g)
	}
	if fold {
		p = strings.ToLower(p)
	}
	return userGlob{pattern: p, abs: abs, rule: "path:" + g}, nil
}

// Text reports the first marking found in s: the one that starts first,
// built-in markings before the organisation's at the same position. Its cost
// is linear in len(s).
func (c *Classifier) Text(s string) (Match, bool) {
	start, end, rule, found := scanBuiltin(s)
	if c == nil {
		if found {
			return Match{Marking: s[start:end], Rule: rule}, true
		}
		return Match{}, false
	}
	for _, m := range c.markings {
		// Only a match starting before the best one so far can win; a
		// leftmost match must then start in s[:start], but may end after it,
		// so search all of s and compare.
		loc := m.re.FindStringIndex(s)
		if loc != nil && (!found || loc[0] < start) {
			start, end, rule, found = loc[0], loc[1], m.rule, true
		}
	}
	if !found {
		return Match{}, false
	}
	return Match{Marking: s[start:end], Rule: rule}, true
}

// Path reports whether p (absolute, or relative to root) is classified by a
// path glob. Relative globs apply only inside root: a path outside root
// never matches one. Matching is on names only: no file is read and
// symbolic links are not followed, so callers that can should pass resolved
// paths. On macOS and Windows, whose file systems usually ignore case,
// matching ignores case too, so that "Confidential/x" cannot step around
// "confidential/**".
func (c *Classifier) Path(root, p string) (Match, bool) {
	if c == nil || len(c.globs) == 0 || p == "" {
		return Match{}, false
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	abs = absClean(abs)
	rel, relErr := filepath.Rel(absClean(root), abs)
	inside := relErr == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
	absS, relS := filepath.ToSlash(abs), filepath.ToSlash(rel)
	if c.fold {
		absS, relS = strings.ToLower(absS), strings.ToLower(relS)
	}
	for _, g := range c.globs {
		name := absS
		if !g.abs {
			if !inside {
				continue
			}
			name = relS
		}
		if matchSelfOrParent(g.pattern, name) {
			return Match{Marking: p, Rule: g.rule}, true
		}
	}
	return Match{}, false
}

// absClean makes p absolute when it can (a relative root is taken from the
// working directory) and cleans it.
func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// matchSelfOrParent matches name and then each directory above it, so a
// glob naming a directory classifies its contents.
func matchSelfOrParent(pattern, name string) bool {
	for {
		if doublestar.MatchUnvalidated(pattern, name) {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i <= 0 {
			return false
		}
		name = name[:i]
	}
}
