package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Confinement is checked twice, for two different reasons.
//
// resolve checks a path lexically and then resolves the symbolic links of
// its longest existing prefix, so that the model gets a clear message naming
// the path and the reason ("escapes the project root with ..", "leads
// outside through a symlink"). Its result is a path relative to the real
// root with no symlink left in its existing part.
//
// Every operation then goes through an os.Root opened on the real root,
// which refuses, at the system-call level, to leave it: a symlink swapped in
// between resolve and the operation still cannot lead out. os.Root alone
// would not do: it refuses absolute symlink targets even inside the root,
// and its errors do not tell the model what is wrong.

// target is a path that resolve found inside the root.
type target struct {
	arg string // the argument as the model wrote it, for messages
	rel string // slash-separated, relative to the real root; "." is the root
}

// os is rel in the platform's separator, for the os.Root methods.
func (t target) os() string { return filepath.FromSlash(t.rel) }

// resolve checks that p, relative to the root or absolute, lies inside the
// root once cleaned and once its symlinks are resolved.
func (s *Set) resolve(p string) (target, error) {
	if p == "" {
		return target{}, errors.New("path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return target{}, fmt.Errorf("path %q contains a NUL byte", p)
	}
	native := filepath.FromSlash(p)
	var rel string
	if filepath.IsAbs(native) {
		abs := filepath.Clean(native)
		// An absolute path may spell the root as configured or as resolved
		// (a root under a symlinked /tmp, say).
		r, ok := within(s.root, abs)
		if !ok {
			r, ok = within(s.real, abs)
		}
		if !ok {
			return target{}, fmt.Errorf("path %q is outside the project root %s", p, s.root)
		}
		rel = r
	} else {
		r, ok := within(s.real, filepath.Join(s.real, native))
		if !ok {
			return target{}, fmt.Errorf("path %q escapes the project root (.. leads outside it)", p)
		}
		rel = r
	}
	real, err := s.evalInside(p, rel)
	if err != nil {
		return target{}, err
	}
	return target{arg: p, rel: filepath.ToSlash(real)}, nil
}

// evalInside resolves the symlinks of rel's longest existing prefix and
// checks the result is still inside the real root. The components that do
// not exist yet (a file about to be created) cannot be symlinks, so they are
// appended as they are.
func (s *Set) evalInside(arg, rel string) (string, error) {
	cur := filepath.Join(s.real, rel)
	var tail []string
	for {
		_, err := os.Lstat(cur)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// ENOTDIR (a file used as a directory), EACCES, ...
			return "", fmt.Errorf("path %q: %w", arg, stripPath(err))
		}
		if cur == s.real {
			return "", fmt.Errorf("path %q: the project root no longer exists", arg)
		}
		tail = append(tail, filepath.Base(cur))
		cur = filepath.Dir(cur)
	}
	resolved, err := filepath.EvalSymlinks(cur)
	if err != nil {
		// Lstat found cur, so a link on the way is dangling or loops.
		return "", fmt.Errorf("path %q goes through a symlink that cannot be resolved (%v)", arg, stripPath(err))
	}
	r, ok := within(s.real, resolved)
	if !ok {
		return "", fmt.Errorf("path %q leads outside the project root through a symlink", arg)
	}
	for i := len(tail) - 1; i >= 0; i-- {
		r = filepath.Join(r, tail[i])
	}
	return r, nil
}

// within returns abs relative to base when abs is base or below it.
func within(base, abs string) (string, bool) {
	r, err := filepath.Rel(base, abs)
	if err != nil {
		return "", false
	}
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return r, true
}

// stripPath drops the absolute path a *fs.PathError carries: messages name
// the path as the model wrote it, not where the root lives on the host.
func stripPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// describe wraps an operation error for the model: the path as it wrote it,
// the system's reason without the host path.
func describe(t target, what string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %s: %w", what, t.arg, fs.ErrNotExist)
	}
	return fmt.Errorf("%s %s: %w", what, t.arg, stripPath(err))
}
