package files

import (
	"bytes"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The subset of gitignore(5) implemented, enough for the trees agents
// search (build outputs, dependencies, caches):
//
//   - a .gitignore in any directory, its patterns relative to that
//     directory; a deeper file takes precedence over a higher one, and
//     within a file the last matching pattern wins;
//   - blank lines and "#" comments; trailing spaces unless escaped with a
//     backslash; "\#" and "\!" for a literal first character;
//   - "!" negation, which re-includes what an earlier pattern excluded
//     (but, as in git, not inside a directory that is itself excluded: the
//     walk never enters it);
//   - a trailing "/" for directories only;
//   - a "/" at the start or in the middle anchors the pattern to the
//     .gitignore's directory; without one the pattern matches a name at any
//     depth;
//   - "*", "?", "[...]" and "**" (leading "**/", trailing "/**", "/**/").
//
// Not implemented: .git/info/exclude, core.excludesFile, and the global
// ignore file, which belong to a developer's machine rather than to the
// project.

// ignoreRule is one pattern line.
type ignoreRule struct {
	pattern  string // a doublestar pattern
	negate   bool
	dirOnly  bool
	anchored bool // matched against the path below the file's directory, not the name
}

// ignoreFile is one parsed .gitignore.
type ignoreFile struct {
	dir   string // slash path of its directory, relative to the root; "" for the root
	rules []ignoreRule
}

// parseIgnore parses the content of the .gitignore of dir. Patterns it
// cannot translate are dropped: a rule that is ignored only makes a search
// wider.
func parseIgnore(dir string, data []byte) *ignoreFile {
	f := &ignoreFile{dir: dir}
	for raw := range bytes.SplitSeq(data, []byte{'\n'}) {
		line := strings.TrimSuffix(string(raw), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimTrailingSpaces(line)
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		r.anchored = strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		r.pattern = escapeBraces(line)
		if r.pattern == "" || !doublestar.ValidatePattern(r.pattern) {
			continue
		}
		f.rules = append(f.rules, r)
	}
	return f
}

// trimTrailingSpaces drops trailing spaces that are not escaped ("a\ "
// keeps its space, and loses the backslash later, in matching).
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// escapeBraces makes "{" and "}" literal: gitignore has no alternation,
// doublestar does.
func escapeBraces(s string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(c)
			i++
			b.WriteByte(s[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// match reports whether a rule of f matches rel (slash, relative to the
// root, below f.dir) and, if so, whether that rule ignores it.
func (f *ignoreFile) match(rel string, isDir bool) (matched, ignored bool) {
	sub := rel
	if f.dir != "" {
		var below bool
		if sub, below = strings.CutPrefix(rel, f.dir+"/"); !below {
			return false, false
		}
	}
	name := path.Base(sub)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		subject := name
		if r.anchored {
			subject = sub
		}
		if doublestar.MatchUnvalidated(r.pattern, subject) {
			return true, !r.negate
		}
	}
	return false, false
}

// ignoreStack is the .gitignore files that apply in a directory, from the
// root down.
type ignoreStack []*ignoreFile

// ignored reports whether rel is ignored: the deepest file with a matching
// rule decides.
func (st ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(st) - 1; i >= 0; i-- {
		if m, ign := st[i].match(rel, isDir); m {
			return ign
		}
	}
	return false
}
