package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/moteur/moteur/frontmatter"
	"github.com/moteur/moteur/strictyaml"
)

// scan reads the packages of one location, in name order. A location that
// does not exist is no problem; one that cannot be read is.
func (s *Set) scan(loc location) []Skill {
	entries, err := os.ReadDir(loc.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		s.problems = append(s.problems, Problem{Path: loc.dir, Reason: fmt.Sprintf("cannot list the skill directory: %v", stripPath(err))})
		return nil
	}
	var out []Skill
	n := 0
	for _, e := range entries {
		if e.Name()[0] == '.' {
			continue // .git, editors' files: not packages
		}
		dir := filepath.Join(loc.dir, e.Name())
		real, ok := s.packageDir(dir, e)
		if !ok {
			continue
		}
		if n++; n > MaxPackages {
			s.problems = append(s.problems, Problem{Path: loc.dir, Reason: fmt.Sprintf("more than %d packages: the others are skipped", MaxPackages)})
			break
		}
		s.dirs = append(s.dirs, real)
		k, p := readPackage(real, e.Name(), loc.source)
		if p != nil {
			p.Path = filepath.Join(dir, FileName)
			s.problems = append(s.problems, *p)
			continue
		}
		out = append(out, k)
	}
	return out
}

// packageDir returns the real directory of entry e of a location, following
// a symbolic link (skills are often linked from where they are kept); ok is
// false for what is not a directory.
func (s *Set) packageDir(dir string, e fs.DirEntry) (string, bool) {
	if e.Type().IsRegular() {
		return "", false // a README beside the packages
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		s.problems = append(s.problems, Problem{Path: dir, Reason: fmt.Sprintf("cannot resolve the package directory: %v", stripPath(err))})
		return "", false
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	return real, true
}

// readPackage reads and checks dir/SKILL.md. The Problem's Path is set by
// the caller.
func readPackage(dir, base string, src Source) (Skill, *Problem) {
	data, err := readSkillFile(dir)
	if err != nil {
		return Skill{}, &Problem{Reason: err.Error()}
	}
	doc, err := frontmatter.Parse(data)
	if err != nil {
		var se *strictyaml.Error
		if errors.As(err, &se) {
			return Skill{}, &Problem{Line: se.Line, Reason: se.Msg}
		}
		return Skill{}, &Problem{Line: 1, Reason: err.Error()}
	}
	k := Skill{Dir: dir, Source: src, Fields: doc.Fields, ModelInvocable: true, UserInvocable: true}
	sum := sha256.Sum256(data)
	k.SHA256 = hex.EncodeToString(sum[:])
	if p := k.checkFields(base); p != nil {
		return Skill{}, p
	}
	return k, nil
}

// checkFields reads the known keys of the front matter into k.
func (k *Skill) checkFields(base string) *Problem {
	name, err := stringField(k.Fields, "name")
	if err != nil {
		return &Problem{Reason: err.Error()}
	}
	if name == "" {
		// Claude Code names a skill without a name after its directory.
		name = base
	}
	if err := CheckName(name); err != nil {
		if _, given := k.Fields["name"]; !given {
			return &Problem{Reason: fmt.Sprintf("no name in the front matter, and the directory's name cannot stand for it: %v", err)}
		}
		return &Problem{Reason: err.Error()}
	}
	k.Name = name
	desc, err := stringField(k.Fields, "description")
	if err != nil {
		return &Problem{Reason: err.Error()}
	}
	switch n := utf8.RuneCountInString(desc); {
	case desc == "":
		return &Problem{Reason: "no description in the front matter: the model chooses a skill by its description (at most 1024 characters)"}
	case n > MaxDescriptionLen:
		return &Problem{Reason: fmt.Sprintf("the description is %d characters long, over the limit of %d", n, MaxDescriptionLen)}
	}
	k.Description = desc
	if b, err := boolField(k.Fields, "disable-model-invocation"); err != nil {
		return &Problem{Reason: err.Error()}
	} else if b {
		k.ModelInvocable = false
	}
	if b, err := boolField(k.Fields, "user-invocable"); err != nil {
		return &Problem{Reason: err.Error()}
	} else if _, set := k.Fields["user-invocable"]; set && !b {
		k.UserInvocable = false
	}
	return nil
}

func stringField(f map[string]any, key string) (string, error) {
	v, ok := f[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("front matter key %q must be a string, not %T", key, v)
	}
	return s, nil
}

func boolField(f map[string]any, key string) (bool, error) {
	v, ok := f[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("front matter key %q must be true or false, not %v", key, v)
	}
	return b, nil
}

// readSkillFile reads dir/SKILL.md through an os.Root on dir, within
// MaxSkillFileBytes: a SKILL.md that is a symbolic link out of the package
// is refused.
func readSkillFile(dir string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open the package directory: %v", stripPath(err))
	}
	defer root.Close()
	return readIn(root, FileName, MaxSkillFileBytes)
}

// readIn reads name in root, a regular file of at most limit bytes.
func readIn(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no %s in the package", name)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %v", name, stripPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", name, stripPath(err))
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s %w", name, errIsDir)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", name, fi.Mode().Type())
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the limit of %d", name, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v", name, stripPath(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is over the limit of %d bytes", name, limit)
	}
	return data, nil
}

// errIsDir: a path names a directory where a file is expected.
var errIsDir = errors.New("is a directory")

// stripPath drops the host path a *fs.PathError carries.
func stripPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
