package files

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/redact"
)

// Skills. read_file serves the skill:// addresses of Config.Skills (seed
// 000: "read_file(path=\"skill://<name>/SKILL.md\")"), paged like a file;
// write_file and edit_file refuse every path inside a skill's directory,
// whatever the permission rules and the mode: "les outils fichiers
// workspace ordinaires ne modifient pas un skill installé". A skill
// directory outside the project is out of their reach already.

// ErrSkillReadOnly is the error of a write or an edit inside a skill's
// directory.
var ErrSkillReadOnly = errors.New("skill files are read-only")

// SkillScheme starts a skill address.
const SkillScheme = "skill://"

// SkillReader is what the file tools need of the session's skills;
// *skills.Set implements it.
type SkillReader interface {
	// ReadSkill returns the text read_file shows for a skill:// address
	// and the absolute path of the file it comes from, symbolic links
	// resolved (to classify it).
	ReadSkill(ctx context.Context, uri string) (text []byte, file string, err error)
	// SkillAt returns the skill directory holding abs (absolute, symbolic
	// links resolved), if any.
	SkillAt(abs string) (dir string, ok bool)
}

// isSkillURI reports whether a path argument is a skill address.
func isSkillURI(p string) bool { return strings.HasPrefix(p, SkillScheme) }

// readSkillPage is read_file on a skill address: the same page, header and
// masking as a project file's, the skill's text being held whole.
func (s *Set) readSkillPage(ctx context.Context, uri string, offset, limit, maxBytes int) (string, string, error) {
	if s.skills == nil {
		return "", "", fmt.Errorf("%s: this session has no skills", uri)
	}
	data, file, err := s.skills.ReadSkill(ctx, uri)
	if err != nil {
		return "", "", err
	}
	var rule string
	if rel, ok := within(s.real, file); ok {
		s.meet(&rule, filepath.ToSlash(rel))
	}
	if looksBinary(data) {
		return "", rule, fmt.Errorf("%s is a binary file (%d bytes): read_file only returns text", uri, len(data))
	}
	text := string(data)
	s.meetText(&rule, text)
	masked, _ := redact.Lines(text)
	p, err := paginate(ctx, strings.NewReader(masked), offset, limit, maxBytes, nil)
	if err != nil {
		return "", rule, fmt.Errorf("read %s: %w", uri, err)
	}
	page, err := pageText(uri, uri, offset, p)
	return page, rule, err
}

// refuseSkill refuses a write or an edit of a path inside a skill's
// directory.
func (s *Set) refuseSkill(tool string, tg target) error {
	if s.skills == nil {
		return nil
	}
	dir, ok := s.skills.SkillAt(filepath.Join(s.real, filepath.FromSlash(tg.rel)))
	if !ok {
		return nil
	}
	return fmt.Errorf("%w: %s is inside the skill directory %s; skill files are read-only to %s and the other file tools (write your output in the project instead)", ErrSkillReadOnly, tg.arg, dir, tool)
}
