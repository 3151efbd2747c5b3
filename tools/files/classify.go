package files

import (
	"fmt"
	"strings"

	"github.com/moteur/moteur/classify"
	"github.com/moteur/moteur/tools"
)

// Classification by path. A file under a classified path (Config.Classify)
// need not carry a marking in its text, so the engine cannot tell from a
// result's text that it holds something of such a file: each tool says so
// in Result.Classified, the rule of the first classified path its result
// draws on, and the engine makes the session sensitive.
//
// A result draws on a file when it shows or counts something of it:
//
//   - read_file: the file read, once it is open (a page, its emptiness, its
//     line count, the NUL byte that makes it binary);
//   - grep: every file with a matching line, shown or only counted, and
//     every file named as too large to search;
//   - list_files: every entry of the directory, listed or only counted,
//     a subdirectory being asked as "dir/";
//   - glob: every matching file, listed or only counted;
//   - write_file: the file written;
//   - edit_file: the file edited, once its content is read: an edit that
//     fails still says where its text occurs in it, or that it does not.
//
// Paths are the resolved ones, relative to the real root: a symlink inside
// the project does not hide the classified file it leads to.
//
// Classification by marking. A marking anywhere in a file classifies the
// whole file: a page of a document stamped DIFFUSION RESTREINTE on its
// first line is as classified as its first page. So read_file and grep ask
// Config.Markings for the file's whole text, as it is on disk (before any
// line number is put in front of a line, which would hide a banner or
// split a marking from itself), and report the marking in
// Result.Classified like a path rule: the session becomes sensitive, or,
// without a local provider, nothing more is sent. Of a file over
// maxCachedFile, streamed rather than held, read_file asks for its first
// MiB (where a document carries its stamp) and for the page it shows with
// the line before (see streamGuard); grep asks for the whole text of every
// file it reports a line of.

// unnamedRule stands for a rule Classify left empty: "" would read as "not
// classified" and let the file through.
const unnamedRule = "path"

// classified returns the rule that classifies rel (a slash path relative to
// the real root; a directory's ends with "/"), or "" when none does.
func (s *Set) classified(rel string) string {
	if s.classify == nil {
		return ""
	}
	rule, ok := s.classify(rel)
	switch {
	case !ok:
		return ""
	case rule == "":
		return unnamedRule
	}
	return rule
}

// meet records in *rule the rule of rel, unless the result already met a
// classified path: the first one is reported, and Classify is not asked
// again.
func (s *Set) meet(rule *string, rel string) {
	if *rule == "" {
		*rule = s.classified(rel)
	}
}

// answer returns a tool's outcome with the rule of the classified file it
// draws on. An error keeps the rule too (the registry carries it into the
// error result): a failure can say something of the file, where an edit's
// text occurs or how many lines it has.
func answer(tool string, res tools.Result, rule string, err error) (tools.Result, error) {
	if err != nil {
		return tools.Result{Classified: rule}, fmt.Errorf("%s: %w", tool, err)
	}
	res.Classified = rule
	return res, nil
}

// marked returns the marking text carries ("" when none), as
// Config.Markings says, or the built-in markings without one.
func (s *Set) marked(text string) string {
	var m string
	var ok bool
	if s.markings != nil {
		m, ok = s.markings(text)
	} else {
		var c *classify.Classifier // nil: the built-in markings
		var match classify.Match
		match, ok = c.Text(text)
		m = match.Marking
	}
	if !ok {
		return ""
	}
	// As the prompt's classification names it: the marking as found, its
	// white space (a line break in a stacked stamp) as one space.
	if m = strings.Join(strings.Fields(m), " "); m == "" {
		return "marking"
	}
	return m
}

// meetText records in *rule the marking text carries, unless the result
// already met a classified path or marking.
func (s *Set) meetText(rule *string, text string) {
	if *rule == "" {
		*rule = s.marked(text)
	}
}
