package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moteur/moteur/frontmatter"
)

// maxWalked bounds the entries level 2 walks to count a package's files.
const maxWalked = 10000

// ReadSkill returns what read_file(path=uri) reads (tools/files' skill
// reader): for skill://NAME/SKILL.md (or skill://NAME), level 2 — how to
// run the skill, its directory, its file list and the body of SKILL.md;
// for skill://NAME/PATH, level 3 — the file's bytes, at most
// MaxResourceBytes. file is the absolute path of the file read, symbolic
// links resolved, so that the caller can classify it. Every file is opened
// through an os.Root on the skill's directory: a symbolic link that leads
// out of it is refused by the system, not only by a check.
func (s *Set) ReadSkill(ctx context.Context, uri string) (text []byte, file string, err error) {
	name, rel, err := ParseURI(uri)
	if err != nil {
		return nil, "", err
	}
	k, err := s.lookup(name)
	if err != nil {
		return nil, "", err
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(k.Dir)
	if err != nil {
		return nil, "", fmt.Errorf("skill %s: cannot open its directory: %v", name, stripPath(err))
	}
	defer root.Close()
	if rel == FileName {
		out, err := k.level2(ctx, root)
		return out, filepath.Join(k.Dir, FileName), err
	}
	data, err := readIn(root, filepath.FromSlash(rel), MaxResourceBytes)
	if err != nil {
		if errors.Is(err, errIsDir) {
			return nil, "", fmt.Errorf("skill %s: %s is a directory; its files are listed in %s", name, rel, k.URI())
		}
		return nil, "", fmt.Errorf("skill %s: %w", name, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(k.Dir, filepath.FromSlash(rel)))
	if err != nil {
		return nil, "", fmt.Errorf("skill %s: %s: %v", name, rel, stripPath(err))
	}
	return data, real, nil
}

// level2 is the text of skill://NAME/SKILL.md.
func (k Skill) level2(ctx context.Context, root *os.Root) ([]byte, error) {
	data, err := readIn(root, FileName, MaxSkillFileBytes)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %w", k.Name, err)
	}
	doc, err := frontmatter.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("skill %s: %s no longer reads: %w", k.Name, FileName, err)
	}
	files, more, err := listFiles(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("skill %s: listing its files: %w", k.Name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s: %s\n", k.Name, k.Description)
	fmt.Fprintf(&b, "Directory: %s (read-only)\n", k.Dir)
	fmt.Fprintf(&b, "Run its scripts with shell_exec(skill_name=%q, command=\"…\"): the command runs in this directory, with $MOTEUR_SKILL_DIR set to it, in the same sandbox as any command. skill:// addresses are not shell paths.\n", k.Name)
	fmt.Fprintf(&b, "Read its other files with read_file(path=\"%s%s/PATH\").\n", Scheme, k.Name)
	fmt.Fprintf(&b, "Files (%d", len(files)+more)
	if more > 0 {
		fmt.Fprintf(&b, ", the first %d listed", len(files))
	}
	b.WriteString("):\n")
	for _, f := range files {
		fmt.Fprintf(&b, "  %s (%d bytes)\n", f.path, f.size)
	}
	if more > 0 {
		fmt.Fprintf(&b, "  … and %d more\n", more)
	}
	fmt.Fprintf(&b, "\n--- %s ---\n", FileName)
	b.WriteString(expand(doc.Body, k.Dir))
	return []byte(b.String()), nil
}

// expand replaces the skill directory's placeholders that SKILL.md files
// written for Claude Code use (${CLAUDE_SKILL_DIR}), and Moteur's own, with
// the directory.
func expand(body, dir string) string {
	return strings.NewReplacer("${CLAUDE_SKILL_DIR}", dir, "${MOTEUR_SKILL_DIR}", dir).Replace(body)
}

type listed struct {
	path string
	size int64
}

// listFiles walks root (symbolic links to directories are not followed;
// .git is skipped) and returns its first MaxListedFiles regular files in
// walk order, and how many more it counted.
func listFiles(ctx context.Context, root *os.Root) ([]listed, int, error) {
	var out []listed
	more, walked := 0, 0
	errStop := errors.New("stop")
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is left out of the list
		}
		if walked++; walked > maxWalked {
			return errStop
		}
		if walked%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if len(out) >= MaxListedFiles {
			more++
			return nil
		}
		var size int64
		if fi, err := d.Info(); err == nil {
			size = fi.Size()
		}
		out = append(out, listed{p, size})
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, 0, err
	}
	return out, more, nil
}
