package skills

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Scheme starts the address of a skill's files.
const Scheme = "skill://"

// Sentinel errors.
var (
	// ErrUnknown: no skill of that name is offered.
	ErrUnknown = errors.New("unknown skill")
	// ErrNotUserInvocable: the skill's front matter sets user-invocable:
	// false.
	ErrNotUserInvocable = errors.New("the skill cannot be invoked by the user")
)

// CheckName checks a skill name: 1 to 64 characters, lowercase letters,
// digits and hyphens (seed 000 and Claude Code), not starting with a hyphen
// (it would read as an option after --skill).
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("the skill name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("the skill name %q is %d characters long, over the limit of %d", clip(name), len(name), MaxNameLen)
	case name[0] == '-':
		return fmt.Errorf("the skill name %q starts with a hyphen", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("the skill name %q has the character %q: use lowercase letters, digits and hyphens only", clip(name), rune(c))
		}
	}
	return nil
}

// clip shortens a name for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ParseURI splits skill://NAME/PATH. PATH is slash-separated, cleaned, and
// local ("", "." or none mean SKILL.md); ".." anywhere, an absolute path, a
// backslash or a NUL byte are refused, whatever cleaning would make of them.
func ParseURI(uri string) (name, rel string, err error) {
	rest, ok := strings.CutPrefix(uri, Scheme)
	if !ok {
		return "", "", fmt.Errorf("%q is not a skill address: it must start with %s", clip(uri), Scheme)
	}
	name, rel, _ = strings.Cut(rest, "/")
	if err := CheckName(name); err != nil {
		return "", "", fmt.Errorf("%q: %w", clip(uri), err)
	}
	if strings.ContainsAny(rel, "\\\x00") {
		return "", "", fmt.Errorf("%q: the path has a backslash or a NUL byte", clip(uri))
	}
	if strings.HasPrefix(rel, "/") {
		return "", "", fmt.Errorf("%q: the path inside the skill must be relative", clip(uri))
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." {
			return "", "", fmt.Errorf("%q: \"..\" is refused: a skill's address stays inside its directory", clip(uri))
		}
	}
	rel = path.Clean("/" + rel)[1:]
	if rel == "" {
		rel = FileName
	}
	return name, rel, nil
}
