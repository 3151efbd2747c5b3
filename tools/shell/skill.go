package shell

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Skills. shell_exec(skill_name=NAME, command=…) runs the command in the
// directory of the session's skill NAME, with $MOTEUR_SKILL_DIR set to it,
// under the same sandbox, policy and limits as any command (seed 000:
// "shell_exec(skill_name=..., command=...)", "avec skill, résout répertoire
// et variables"). With the sandbox, every skill directory inside the
// project is read-only, as the file tools hold it, and the skill's own
// directory is bound read-only wherever it lives (a user's skill outside
// the project, even under /tmp, which the sandbox replaces).

// SkillEnv is the variable that names the skill's directory.
const SkillEnv = "MOTEUR_SKILL_DIR"

// SkillResolver is what the shell tool needs of the session's skills;
// *skills.Set implements it.
type SkillResolver interface {
	// SkillDir returns the directory of an offered skill (absolute,
	// symbolic links resolved), or an error that says which skills there
	// are.
	SkillDir(name string) (string, error)
	// SkillDirs returns every skill directory of the session.
	SkillDirs() []string
}

// skillSchema is the schema's skill_name property, offered only when the
// session has skills.
const skillSchema = `"skill_name": {"type": "string", "minLength": 1, "description": "Run the command in this skill's directory (see its skill://NAME/SKILL.md), with $MOTEUR_SKILL_DIR set to it; work_dir must then be left out."},
    `

// withSkills returns the schema with skill_name.
func withSkills(s string) string {
	return strings.Replace(s, `"work_dir":`, skillSchema+`"work_dir":`, 1)
}

// callDir is the directory a call runs in, and its skill's directory when
// it names one.
func (e *Exec) callDir(a args) (wd, skillDir string, err error) {
	if a.SkillName == "" {
		wd, err = e.workDir(a.WorkDir)
		return wd, "", err
	}
	if e.skills == nil {
		return "", "", fmt.Errorf("skill_name %q: this session has no skills", a.SkillName)
	}
	if a.WorkDir != "" {
		return "", "", fmt.Errorf("skill_name and work_dir together: a skill's command runs in the skill's directory; leave work_dir out")
	}
	dir, err := e.skills.SkillDir(a.SkillName)
	if err != nil {
		return "", "", fmt.Errorf("skill_name: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", fmt.Errorf("skill %s: its directory: %w", a.SkillName, err)
	}
	return real, real, nil
}

// protectSkills adds to prot, for a sandboxed command, the skill
// directories inside the project (read-only) and the call's own skill
// directory wherever it is.
func (e *Exec) protectSkills(prot protection, skillDir string) protection {
	if e.skills == nil {
		return prot
	}
	dirs := e.skills.SkillDirs()
	if skillDir != "" {
		dirs = append(dirs, skillDir)
	}
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue // gone: nothing to protect
		}
		if _, in := insideRoot(e.root, real); !in && real != skillDir {
			continue // read-only already, with the rest of the filesystem
		}
		covered := false
		for _, r := range prot.readOnly {
			if within(r, real) {
				covered = true
				break
			}
		}
		if !covered {
			prot.readOnly = append(prot.readOnly, real)
		}
	}
	return prot
}
