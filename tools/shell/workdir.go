package shell

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// workDir resolves the call's work_dir to a real directory inside the
// project: relative paths are taken from the root, absolute ones may name
// the root as configured or as resolved. The result has no symbolic link in
// it, so the directory checked is the directory used (and, with bwrap, one
// that exists inside the sandbox).
func (e *Exec) workDir(dir string) (string, error) {
	if dir == "" || dir == "." {
		return e.root, nil
	}
	p := dir
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.root, p)
	}
	p = filepath.Clean(p)
	// Refused before touching the filesystem: whether an outside path
	// exists is none of the model's business.
	if !within(e.root, p) && !within(e.rootAlias, p) {
		return "", fmt.Errorf("work_dir %q is outside the project root %s; use a directory inside the project", dir, e.root)
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("work_dir %q does not exist in the project", dir)
	}
	if err != nil {
		return "", fmt.Errorf("work_dir %q: %w", dir, err)
	}
	if !within(e.root, real) {
		return "", fmt.Errorf("work_dir %q leads outside the project root %s through a symbolic link", dir, e.root)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("work_dir %q: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("work_dir %q is not a directory", dir)
	}
	return real, nil
}

// within reports whether the clean path p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}
