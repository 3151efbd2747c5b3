package files

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/moteur/moteur/tools"
)

// A write to a control file (tools.ControlPaths: .git/config, .git/hooks/,
// .moteur/, .mcp.json…) plants what runs later with the user's rights, so
// write_file and edit_file ask for it in every mode, whatever the allow
// rules say (tools.Confirmer). The path is judged as the tool will write it:
// spelt relative or absolute, with "./" and "..", in any case, and through
// symbolic links inside the project, by the same resolve the write uses.

// MustConfirm implements tools.Confirmer.
func (t *WriteFile) MustConfirm(args json.RawMessage) string {
	return t.s.mustConfirm(WriteFileName, "writes", args)
}

// MustConfirm implements tools.Confirmer.
func (t *EditFile) MustConfirm(args json.RawMessage) string {
	return t.s.mustConfirm(EditFileName, "edits", args)
}

// mustConfirm says why a call of tool on args needs the user's
// confirmation, or "".
func (s *Set) mustConfirm(tool, verb string, args json.RawMessage) string {
	var a struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		// The registry may still repair the text into a valid call, after
		// this check: what it would write cannot be told.
		return fmt.Sprintf("%s's arguments cannot be read, so whether it writes a file that makes programs run or grants rights (.git/config, .git/hooks/, .moteur/, .mcp.json…) cannot be checked: it needs your confirmation.", tool)
	}
	if a.Path == "" {
		return "" // refused by the tool itself
	}
	if tg, err := s.resolve(a.Path); err == nil && s.refuseSkill(tool, tg) != nil {
		return "" // refused by the tool itself: nothing to confirm
	}
	paths := tools.ControlPaths(s.real)
	// The path as written first, then as resolved: a path through a link
	// that resolve refuses is not written, but one whose spelling is a
	// control path deserves the question either way.
	if rel, ok := s.lexical(a.Path); ok {
		if c, ok := tools.IsControl(paths, rel); ok {
			return confirmSentence(tool, verb, a.Path, "", c)
		}
	}
	tg, err := s.resolve(a.Path)
	if err != nil {
		return "" // the call is refused before writing anything
	}
	if c, ok := tools.IsControl(paths, tg.rel); ok {
		return confirmSentence(tool, verb, a.Path, tg.rel, c)
	}
	return ""
}

// lexical is p relative to the root, without looking at the filesystem.
func (s *Set) lexical(p string) (string, bool) {
	native := filepath.FromSlash(p)
	if !filepath.IsAbs(native) {
		return filepath.ToSlash(filepath.Clean(native)), true
	}
	abs := filepath.Clean(native)
	if r, ok := within(s.root, abs); ok {
		return filepath.ToSlash(r), true
	}
	if r, ok := within(s.real, abs); ok {
		return filepath.ToSlash(r), true
	}
	return "", false
}

// confirmSentence is the question's reason, for the user and the model.
func confirmSentence(tool, verb, arg, resolved string, c tools.ControlPath) string {
	what := arg
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(arg)))
	switch {
	case resolved != "" && clean != resolved:
		what = fmt.Sprintf("%s, which leads to %s", arg, resolved)
	case !c.Dir && clean != c.Path:
		what = fmt.Sprintf("%s (%s)", arg, c.Path)
	}
	if c.Dir {
		return fmt.Sprintf("%s %s %s, in %s/, whose files make programs run or grant rights: %s. It needs your confirmation every time.", tool, verb, what, c.Path, c.Why)
	}
	return fmt.Sprintf("%s %s %s, a file that makes programs run or grants rights: %s. It needs your confirmation every time.", tool, verb, what, c.Why)
}
