package files

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// errStop ends a walk early without an error.
var errStop = errors.New("stop walk")

// walk calls fn for every regular file under base (a slash path relative
// to the root; "." for the root), in lexical order, directory by directory.
// fn gets the file's slash path and its directory's handle, through which
// it opens the file by name.
//
// It skips .git (a directory, or a file in worktrees and submodules), what
// the .gitignore files of base, its ancestors and its subdirectories
// exclude, and whatever is not a regular file or directory: symbolic links
// are never followed, not even to a place inside the root (the target is
// visited where it lives), and a FIFO or device would block or never end.
//
// Each directory is opened once, as an os.Root below the set's: its files
// are then opened with one openat each, and even a directory swapped for a
// symlink during the walk cannot lead the walk out of it.
func (s *Set) walk(ctx context.Context, base string, fn func(dir *os.Root, name, rel string) error) error {
	var stack ignoreStack
	if base != "." {
		// The ancestors' .gitignore files apply below them too.
		dir := "."
		for _, name := range splitSlash(path.Dir(base)) {
			stack = loadIgnore(s.dir, dir, stack)
			dir = path.Join(dir, name)
		}
		stack = loadIgnore(s.dir, dir, stack)
	}
	root, err := s.dir.OpenRoot(filepath.FromSlash(base))
	if err != nil {
		return fmt.Errorf("open %s: %w", base, stripPath(err))
	}
	defer root.Close()
	err = walkDir(ctx, root, base, stack, fn)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, root *os.Root, dir string, stack ignoreStack, fn func(*os.Root, string, string) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if data, err := root.ReadFile(".gitignore"); err == nil {
		stack = pushIgnore(stack, dir, data)
	}
	entries, err := readDir(root)
	if err != nil {
		// An unreadable directory (permissions, removed meanwhile) is
		// skipped: one such directory must not fail a search of the tree.
		return nil
	}
	for _, d := range entries {
		name := d.Name()
		if name == ".git" {
			continue
		}
		rel := name
		if dir != "." {
			rel = dir + "/" + name
		}
		switch t := d.Type(); {
		case t.IsDir():
			if stack.ignored(rel, true) {
				continue
			}
			sub, err := root.OpenRoot(name)
			if err != nil {
				continue // removed or unreadable meanwhile
			}
			err = walkDir(ctx, sub, rel, stack, fn)
			_ = sub.Close()
			if err != nil {
				return err
			}
		case t.IsRegular():
			if stack.ignored(rel, false) {
				continue
			}
			if err := fn(root, name, rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDir returns the entries of root's directory sorted by name.
func readDir(root *os.Root) ([]fs.DirEntry, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// loadIgnore returns stack with the .gitignore of dir (a slash path below
// root) on top, if it has one.
func loadIgnore(root *os.Root, dir string, stack ignoreStack) ignoreStack {
	data, err := root.ReadFile(filepath.Join(filepath.FromSlash(dir), ".gitignore"))
	if err != nil {
		return stack
	}
	return pushIgnore(stack, dir, data)
}

// pushIgnore returns stack with dir's parsed .gitignore on top. The slice
// is copied on append so that sibling directories do not share (and
// overwrite) each other's top.
func pushIgnore(stack ignoreStack, dir string, data []byte) ignoreStack {
	key := dir
	if dir == "." {
		key = ""
	}
	return append(stack[:len(stack):len(stack)], parseIgnore(key, data))
}

// splitSlash splits a clean slash path into its names; "." has none.
func splitSlash(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
