package files

import (
	"fmt"

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
