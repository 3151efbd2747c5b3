package classify

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/moteur/moteur/textfold"
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
	// Markings are regular expressions (RE2 syntax). They are matched
	// against the text as it is and against its folded form (see package
	// textfold; line breaks read as spaces there), so "PROJET ALPHA" also
	// finds "PROJET\nALPHA", "**PROJET** ALPHA" and "P R O J E T ALPHA".
	// They are case-sensitive unless they start with "(?i)" or
	// CaseInsensitive is set.
	Markings []string
	// CaseInsensitive matches the Markings and the built-in markings in any
	// case: "Diffusion Restreinte" and a "Confidentiel" banner are found,
	// at the price of prose such as "un lieu très secret" being classified
	// too. Off, the built-in markings are upper case only (see the package
	// documentation).
	CaseInsensitive bool
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
	ci       bool // Rules.CaseInsensitive
}

type userMarking struct {
	re   *regexp.Regexp
	rule string
	// lead is text every match starts with, white space excluded, in any
	// ASCII case when leadFold; "" when the expression has none. capsLead
	// is the start of lead that inert text keeps as it is (see capsPrefix).
	lead     string
	leadFold bool
	capsLead string
}

type userGlob struct {
	pattern string // cleaned, "/" separated, lower-cased when fold
	abs     bool
	rule    string
}

// New compiles r. Every invalid regular expression or glob is reported,
// each naming it and why. The built-in markings apply even with empty Rules.
func New(r Rules) (*Classifier, error) {
	c := &Classifier{fold: runtime.GOOS == "darwin" || runtime.GOOS == "windows", ci: r.CaseInsensitive}
	var errs []error
	for _, expr := range r.Markings {
		m, err := compileMarking(expr, r.CaseInsensitive)
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

func compileMarking(expr string, ci bool) (userMarking, error) {
	if strings.TrimSpace(expr) == "" {
		return userMarking{}, fmt.Errorf("classify: marking %q: empty expression", expr)
	}
	src := expr
	if ci {
		src = "(?i)" + expr
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return userMarking{}, fmt.Errorf("classify: marking %q: invalid regular expression: %w", expr, err)
	}
	// An expression that matches the empty string ("a*", "(?i)x?") matches
	// every text, which would classify everything: surely a mistake.
	if re.MatchString("") {
		return userMarking{}, fmt.Errorf("classify: marking %q: matches the empty string, so every text would be classified", expr)
	}
	m := userMarking{re: re, rule: "marking:" + expr}
	if syn, err := syntax.Parse(src, syntax.Perl); err == nil {
		m.lead, m.leadFold = leadOf(syn)
		m.capsLead = capsPrefix(m.lead, m.leadFold)
	}
	return m, nil
}

// leadOf returns a literal every match of re starts with ("PROJET" for
// "PROJET ALPHA", "CLIENT-" for "CLIENT-[0-9]{4}") and whether it is
// matched in any case: the literal's runes up to the first white space
// (folded text has a space where the original may have a line break, or
// any run of white space) and, when matched in any case, up to the first
// rune outside ASCII (whose case folding mayBeIn does not weigh). "" when
// there is none.
func leadOf(re *syntax.Regexp) (string, bool) {
	runes, fold := leadRunes(re)
	var b strings.Builder
	for _, r := range runes {
		if unicode.IsSpace(r) || fold && r >= utf8.RuneSelf {
			break
		}
		b.WriteRune(r)
	}
	return b.String(), fold
}

// leadRunes returns the literal runes every match of re starts with.
func leadRunes(re *syntax.Regexp) (runes []rune, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return leadRunes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return leadRunes(re.Sub[0])
		}
	case syntax.OpConcat:
		for k, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
				continue // zero-width: the match starts with what follows
			case syntax.OpLiteral:
				// Literals in a row, of one case rule, are one.
				runes, fold = append([]rune(nil), sub.Rune...), sub.Flags&syntax.FoldCase != 0
				for _, next := range re.Sub[k+1:] {
					if next.Op != syntax.OpLiteral || (next.Flags&syntax.FoldCase != 0) != fold {
						break
					}
					runes = append(runes, next.Rune...)
				}
				return runes, fold
			}
			return leadRunes(sub)
		}
	}
	return nil, false
}

// capsPrefix returns the longest start of lead made of capitals, digits,
// "-" and ":" (of digits, "-" and ":" when fold: a letter matched in any
// case may be a lower-case one), which inert text keeps as it is (see
// mayBeIn).
func capsPrefix(lead string, fold bool) string {
	for i := 0; i < len(lead); i++ {
		c := lead[i]
		if !(c >= '0' && c <= '9' || c == '-' || c == ':' || !fold && c >= 'A' && c <= 'Z') {
			return lead[:i]
		}
	}
	return lead
}

// mayBeIn reports whether m, which did not match t.s, could match its
// folded text with line breaks read as spaces (see flatIndex), judging by
// the text m's matches start with.
//
// Plain text (textfold.Plain) reads as it is but for its white space, so
// a match starts with m.lead as t.s writes it. Plain text holds no rune
// outside ASCII whose case folds to an ASCII letter (the Kelvin sign, the
// long s: NFKC changes them), so an ASCII lead is matched in any case by
// ASCII alone.
//
// Inert text (textfold.Inert) folds to itself in its capitals, digits,
// "-" and ":": folding makes none of them (the escapes it decodes there
// are lower-case letters and punctuation), removes nothing next to one,
// joins no spaced letters and maps no look-alike, so a run of them in the
// folded text, m.capsLead, is one in t.s.
func (m userMarking) mayBeIn(t *text) bool {
	switch {
	case t.read.Plain():
		if m.lead == "" {
			return true
		}
		if !m.leadFold {
			return strings.Contains(t.s, m.lead)
		}
		return containsFoldASCII(t.s, m.lead)
	case t.read.Inert() && m.capsLead != "":
		return strings.Contains(t.s, m.capsLead)
	}
	return true
}

// containsFoldASCII reports whether s contains lead (ASCII) in any case.
func containsFoldASCII(s, lead string) bool {
	c := lead[0]
	for _, first := range []byte{lowerASCII(c), upperASCII(c)} {
		for i := 0; ; i++ {
			j := strings.IndexByte(s[i:], first)
			if j < 0 {
				break
			}
			i += j
			if len(s)-i >= len(lead) && strings.EqualFold(s[i:i+len(lead)], lead) {
				return true
			}
		}
		if lowerASCII(c) == upperASCII(c) {
			break
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
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

// Text reports the first marking found in s, the built-in markings before
// the organisation's at the same position: the first in s as it is, or,
// when s holds none as it is, the first in s folded (package textfold), so
// that an encoded, disguised or line-numbered marking is found like a
// plain one. Marking is the part of s it was found in ("S E C R E T",
// "DIFFUSION&nbsp;RESTREINTE"). Its cost is linear in len(s); text that
// folding would change in nothing a marking is made of (most text, code
// included) is read as it is, without folding.
func (c *Classifier) Text(s string) (Match, bool) {
	ci := c != nil && c.ci
	t := text{s: s, read: textfold.NewReading(s)}
	start, end, rule, found := scanReading(s, ci, &t.read)
	if c != nil {
		for _, m := range c.markings {
			// Only a match starting before the best one so far can win; a
			// leftmost match must then start in s[:start], but may end
			// after it, so search all of s and compare.
			if loc := m.re.FindStringIndex(s); loc != nil && (!found || loc[0] < start) {
				start, end, rule, found = loc[0], loc[1], m.rule, true
			}
		}
	}
	if !found {
		// The scan went to the end: the reading is whole.
		start, end, rule, found = t.builtinFolded(ci)
	}
	if !found && c != nil {
		for _, m := range c.markings {
			if loc := t.flatIndex(m); loc != nil && (!found || loc[0] < start) {
				start, end, rule, found = loc[0], loc[1], m.rule, true
			}
		}
	}
	if !found {
		return Match{}, false
	}
	return Match{Marking: s[start:end], Rule: rule}, true
}

// text is one text being classified, with its folded forms made on demand.
type text struct {
	s      string
	read   textfold.Reading // shown s whole by the scan
	folded *string          // textfold.Fold(s)
	flat   *string          // what user markings read: see flatIndex
	mapped *textfold.Folded // folded with the map back to s
}

func (t *text) fold() string {
	if t.folded == nil {
		f := textfold.Fold(t.s)
		t.folded = &f
	}
	return *t.folded
}

// origin maps folded[i:j] back to s.
func (t *text) origin(i, j int) (int, int) {
	if t.mapped == nil {
		m := textfold.Map(t.s)
		t.mapped = &m
	}
	return t.mapped.Origin(i, j)
}

// builtinFolded finds the leftmost built-in marking of s folded, mapped back to
// s; none when folding would change nothing the scanner can see (it reads
// any run of white space as one separator): case-sensitive, only what
// folding does beside capitals, digits and TLP's letters can matter
// (textfold.Inert), so code's escapes and "*p" need no fold; in any case,
// everything can (textfold.Plain).
func (t *text) builtinFolded(ci bool) (from, to int, rule string, ok bool) {
	if ci && t.read.Plain() || !ci && t.read.Inert() {
		return 0, 0, "", false
	}
	from, to, rule, ok = scanBuiltin(t.fold(), ci)
	if !ok {
		return 0, 0, "", false
	}
	from, to = t.origin(from, to)
	return from, to, rule, true
}

// flatIndex matches m on the folded text with line breaks read as spaces,
// and returns the match's span in s; nil when that text is s (the caller
// matched s already) or m does not match. Plain text only differs from its
// folded form in its white space: there every run of it is read as one
// space, without folding. A marking whose matches start with text that s
// lacks and folding cannot make (see mayBeIn) is not looked for at all.
func (t *text) flatIndex(m userMarking) []int {
	if !m.mayBeIn(t) {
		return nil
	}
	plain := t.read.Plain()
	if t.flat == nil {
		var f string
		if plain {
			f = collapseSpace(t.s)
		} else {
			f = strings.ReplaceAll(t.fold(), "\n", " ") // same length: the map still holds
		}
		t.flat = &f
	}
	if *t.flat == t.s {
		return nil
	}
	loc := m.re.FindStringIndex(*t.flat)
	if loc == nil {
		return nil
	}
	var a, b int
	if plain {
		a, b = collapsedOrigin(t.s, loc[0], loc[1])
	} else {
		a, b = t.origin(loc[0], loc[1])
	}
	return []int{a, b}
}

// collapseSpace returns s with every run of white space as one space; s
// itself when it has no run to change.
func collapseSpace(s string) string {
	var b strings.Builder
	last := 0 // s[last:] is not written yet
	for i := 0; i < len(s); {
		if !spaceLead[s[i]] || spaceAt(s, i) == 0 {
			i++
			continue
		}
		j := spaceEnd(s, i)
		if s[i] != ' ' || j-i > 1 {
			if b.Cap() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:i])
			b.WriteByte(' ')
			last = j
		}
		i = j
	}
	if b.Cap() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// spaceLead marks the bytes white space may start with.
var spaceLead = func() (t [256]bool) {
	for _, c := range []byte(" \t\n\v\f\r\xC2\xE1\xE2\xE3") {
		t[c] = true
	}
	return t
}()

// spaceAt returns the length of the white space rune at s[i], 0 when
// there is none: ASCII by table, and only the lead bytes of Unicode's
// spaces (U+0085, U+00A0, U+1680, U+2000–U+205F, U+3000) decoded.
func spaceAt(s string, i int) int {
	c := s[i]
	switch {
	case c < utf8.RuneSelf:
		if c == ' ' || c >= '\t' && c <= '\r' {
			return 1
		}
		return 0
	case c == 0xC2 || c == 0xE1 || c == 0xE2 || c == 0xE3:
		if r, n := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
			return n
		}
	}
	return 0
}

// spaceEnd returns the end of the run of white space at s[i:].
func spaceEnd(s string, i int) int {
	for i < len(s) {
		n := spaceAt(s, i)
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// collapsedOrigin maps collapseSpace(s)[i:j] back to s.
func collapsedOrigin(s string, i, j int) (int, int) {
	from, to := -1, len(s)
	k := 0 // the offset in the collapsed text of s[p:]
	for p := 0; ; {
		if k >= i && from < 0 {
			from = p
		}
		if k >= j || p >= len(s) {
			to = p
			break
		}
		if spaceAt(s, p) > 0 {
			p, k = spaceEnd(s, p), k+1
		} else {
			p, k = p+1, k+1
		}
	}
	if from < 0 {
		from = to
	}
	return from, max(from, to)
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
