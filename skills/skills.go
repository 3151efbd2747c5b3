// Package skills owns SKILL.md packages: their discovery in the project's
// and the user's skill directories, the check of their front matter, the
// selection the configuration makes among them, and their progressive
// disclosure to the model (seed 000, "Chargement progressif et périmètre"):
//
//   - level 1: Section, the names and descriptions, for the system prompt
//     (to be added only when read_file is offered);
//   - level 2: ReadSkill("skill://NAME/SKILL.md"), the body with how to run
//     the skill's scripts, its directory and its file list;
//   - level 3: ReadSkill("skill://NAME/PATH"), any file of the package,
//     confined to the skill's directory (no "..", no symbolic link out).
//
// It also gives the file tools the skill directories they must not write
// (SkillAt), the shell tool the directory a skill's scripts run in
// (SkillDir), and the chat and run commands the text of an invocation
// "/NAME args" with the SHA-256 of the SKILL.md it read (Invoke).
//
// Discovery never fails: a package that cannot be used is reported as a
// Problem (file, line when known, reason) and skipped.
//
// A Set is immutable once Discover returns it and safe for concurrent use;
// a nil *Set is an empty set. Levels 2 and 3 and Invoke read the files
// again at each call, so that a skill edited during a session is read as
// it is now; names, descriptions and directories are those of discovery.
package skills

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Limits. Seed 000 fixes the first two ("Limites nommage skill"); the
// others are Moteur's, chosen to keep one package from filling a prompt
// or a page: a SKILL.md is bounded like a skill file the seed's installer
// may write (256 KiB), a resource read at level 3 like a file the sandbox
// file tools may write (8 MiB).
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
	MaxSkillFileBytes = 256 << 10
	MaxResourceBytes  = 8 << 20
	// MaxListedFiles bounds the file list of level 2; beyond it the list
	// says how many more there are.
	MaxListedFiles = 200
	// MaxPackages bounds the packages read in one location, so that a
	// directory with thousands of entries cannot hold a session's start.
	MaxPackages = 1000
)

// FileName is the name of a package's description file.
const FileName = "SKILL.md"

// Source says where a skill was found.
type Source string

// Sources, in the order Discover looks at them.
const (
	SourceUser    Source = "user"    // $XDG_CONFIG_HOME/moteur/skills/
	SourceProject Source = "project" // .moteur/skills/
	SourceAgents  Source = "agents"  // .agents/skills/ (shared with other agents)
	SourceClaude  Source = "claude"  // .claude/skills/ (shared with Claude Code)
)

// Skill is one valid package.
type Skill struct {
	// Name is the front matter's name (the directory's name when the
	// front matter has none, as Claude Code does).
	Name string
	// Description is the front matter's description, what level 1 shows.
	Description string
	// Dir is the package's directory, absolute, symbolic links resolved.
	Dir string
	// Source is the location it was found in.
	Source Source
	// Fields are every key of the front matter, the known ones included.
	Fields map[string]any
	// SHA256 is the hex SHA-256 of SKILL.md as discovery read it.
	SHA256 string
	// ModelInvocable is false when the front matter sets
	// disable-model-invocation: true (Claude Code's key): the skill is left
	// out of Section, only the user invokes it.
	ModelInvocable bool
	// UserInvocable is false when the front matter sets user-invocable:
	// false: Invoke refuses it.
	UserInvocable bool
}

// URI is the skill's level-2 address.
func (k Skill) URI() string { return Scheme + k.Name + "/" + FileName }

// Problem is a package that was skipped, or a selection that names no
// skill. It never stops a session.
type Problem struct {
	// Path is the file or directory concerned ("" for a selection).
	Path string
	// Line is 1-based, 0 when the reason has no line.
	Line   int
	Reason string
}

func (p Problem) Error() string {
	switch {
	case p.Path == "":
		return "skills: " + p.Reason
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason)
	}
	return p.Path + ": " + p.Reason
}

// Config says where to look and what to offer. The zero Config finds
// nothing.
type Config struct {
	// ProjectRoot is the project's directory: .moteur/skills, .agents/skills
	// and .claude/skills under it are read ("" : none).
	ProjectRoot string
	// UserDir is the user's Moteur configuration directory,
	// $XDG_CONFIG_HOME/moteur: its skills/ is read ("" : none). See
	// UserDir.
	UserDir string
	// Selection chooses the skills offered (zero: all).
	Selection Selection
}

// Set is the outcome of one discovery.
type Set struct {
	offered  []Skill        // selected, in discovery order
	byName   map[string]int // index into offered
	excluded []Skill        // valid but not selected
	dirs     []string       // every package directory found, sorted
	problems []Problem
}

// location is one directory of packages.
type location struct {
	dir    string
	source Source
}

// locations lists where cfg looks, in order: the first package of a name
// wins. The user's own skills come first, as in Claude Code (personal
// before project): a repository's skill of the same name must not replace,
// unnoticed, one the user installed; it is reported instead. In the project,
// Moteur's directory comes before the shared ones.
func locations(cfg Config) []location {
	var locs []location
	if cfg.UserDir != "" {
		locs = append(locs, location{filepath.Join(cfg.UserDir, "skills"), SourceUser})
	}
	if cfg.ProjectRoot != "" {
		locs = append(locs,
			location{filepath.Join(cfg.ProjectRoot, ".moteur", "skills"), SourceProject},
			location{filepath.Join(cfg.ProjectRoot, ".agents", "skills"), SourceAgents},
			location{filepath.Join(cfg.ProjectRoot, ".claude", "skills"), SourceClaude},
		)
	}
	return locs
}

// UserDir returns $XDG_CONFIG_HOME/moteur, or ~/.config/moteur without it,
// from getenv (os.Getenv in production); "" when neither is set.
func UserDir(getenv func(string) string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "moteur")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "moteur")
	}
	return ""
}

// Discover reads every location of cfg. It does not fail: what cannot be
// used is in Problems.
func Discover(cfg Config) *Set {
	s := &Set{byName: map[string]int{}}
	var found []Skill
	seen := map[string]string{} // name → SKILL.md of the first
	seenDir := map[string]bool{}
	for _, loc := range locations(cfg) {
		for _, c := range s.scan(loc) {
			if seenDir[c.Dir] {
				// The same directory reached twice (a symbolic link from
				// .claude/skills to .agents/skills): one package.
				continue
			}
			seenDir[c.Dir] = true
			if first, dup := seen[c.Name]; dup {
				s.problems = append(s.problems, Problem{Path: filepath.Join(c.Dir, FileName),
					Reason: fmt.Sprintf("a skill named %q was found first in %s: this one is skipped (the first one wins)", c.Name, first)})
				continue
			}
			seen[c.Name] = filepath.Join(c.Dir, FileName)
			found = append(found, c)
		}
	}
	s.select_(found, cfg.Selection)
	slices.Sort(s.dirs)
	s.dirs = slices.Compact(s.dirs)
	return s
}

// select_ splits found into offered and excluded.
func (s *Set) select_(found []Skill, sel Selection) {
	want := map[string]bool{}
	for _, n := range sel.Names {
		want[n] = true
	}
	for _, k := range found {
		if sel.offers(k.Name) {
			s.byName[k.Name] = len(s.offered)
			s.offered = append(s.offered, k)
		} else {
			s.excluded = append(s.excluded, k)
		}
		delete(want, k.Name)
	}
	if sel.Mode != ModeSelected {
		return
	}
	missing := make([]string, 0, len(want))
	for n := range want {
		missing = append(missing, n)
	}
	slices.Sort(missing)
	for _, n := range missing {
		s.problems = append(s.problems, Problem{Reason: fmt.Sprintf("the selection names the skill %q, which no skill directory holds", n)})
	}
}

// List returns the skills offered, in discovery order.
func (s *Set) List() []Skill {
	if s == nil {
		return nil
	}
	return slices.Clone(s.offered)
}

// Excluded returns the valid skills the selection leaves out.
func (s *Set) Excluded() []Skill {
	if s == nil {
		return nil
	}
	return slices.Clone(s.excluded)
}

// Problems returns what discovery skipped, and why.
func (s *Set) Problems() []Problem {
	if s == nil {
		return nil
	}
	return slices.Clone(s.problems)
}

// Lookup returns an offered skill.
func (s *Set) Lookup(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	i, ok := s.byName[name]
	if !ok {
		return Skill{}, false
	}
	return s.offered[i], true
}

// SkillDir returns the directory of an offered skill, where
// shell_exec(skill_name=NAME) runs (tools/shell's skill resolver).
func (s *Set) SkillDir(name string) (string, error) {
	k, err := s.lookup(name)
	if err != nil {
		return "", err
	}
	return k.Dir, nil
}

// SkillDirs returns every package directory discovery found, offered or
// not, valid or not, sorted: all are read-only to the agent's tools.
func (s *Set) SkillDirs() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.dirs)
}

// SkillAt reports the package directory that holds abs (an absolute path,
// symbolic links resolved), if any, and names it by its directory's base
// name (tools/files' skill reader). Every package found counts, offered or
// not: deny beats allow.
func (s *Set) SkillAt(abs string) (dir string, ok bool) {
	if s == nil {
		return "", false
	}
	abs = filepath.Clean(abs)
	// A linear scan: writes are rare and a session has few skills.
	for _, d := range s.dirs {
		if abs == d || strings.HasPrefix(abs, d+string(filepath.Separator)) {
			return d, true
		}
	}
	return "", false
}

// lookup is Lookup with an error that says what is offered.
func (s *Set) lookup(name string) (Skill, error) {
	if k, ok := s.Lookup(name); ok {
		return k, nil
	}
	if err := CheckName(name); err != nil {
		return Skill{}, err
	}
	var names []string
	for _, k := range s.List() {
		names = append(names, k.Name)
	}
	if len(names) == 0 {
		return Skill{}, fmt.Errorf("%w: %q (this session offers no skill)", ErrUnknown, name)
	}
	return Skill{}, fmt.Errorf("%w: %q (skills offered: %s)", ErrUnknown, name, strings.Join(names, ", "))
}
