package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// ErrNotAPoint reports a rewind to a seq that is not one of the session's
// points.
var ErrNotAPoint = errors.New("checkpoint: not a rewind point")

// FileStatus is the state of one file in a plan.
type FileStatus string

// File statuses.
const (
	// StatusOK: the disk holds what this session last left there; the
	// rewind may restore the file.
	StatusOK FileStatus = "ok"
	// StatusConflict: the file changed since this session last wrote it
	// (another session, an editor, a shell command); the rewind leaves it
	// alone unless the user asks to overwrite it.
	StatusConflict FileStatus = "conflict"
)

// FilePlan is what a rewind would do to one file.
type FilePlan struct {
	// Path is slash-separated, relative to the root.
	Path   string     `json:"path"`
	Status FileStatus `json:"status"`
	// Restore is the blob id of the content at the point; "" when the file
	// did not exist then (restoring deletes it).
	Restore string `json:"restore,omitempty"`
	// Left is the hash of what this session last left on disk; "" when it
	// deleted the file.
	Left string `json:"left,omitempty"`
	// Current is the hash of the file on disk when the plan was made; ""
	// when absent (or unreadable: see Error).
	Current string `json:"current,omitempty"`
	// Error says why the file could not be read when the plan was made (it
	// is then a conflict, which Apply refuses to touch).
	Error string `json:"error,omitempty"`
}

// Plan is what a rewind of the files to a point would do.
type Plan struct {
	ToSeq uint64 `json:"to_seq"`
	// Files are sorted by path.
	Files []FilePlan `json:"files,omitempty"`
	// NotUndoable are the calls after the point whose effects no rewind
	// can undo.
	NotUndoable []Call `json:"not_undoable,omitempty"`
}

// Plan computes, without changing anything, the plan of a rewind to the
// point toSeq against the files under root.
//
// For each file this session changed after the point: Restore is the
// Before of its first change after the point (the content it had then),
// Left the After of its last change (what this session left), Current the
// hash of the file on disk now; the file is ok when Current == Left, a
// conflict otherwise. A file already holding its content at the point
// (Current == Restore) is left out: the rewind has nothing to do there —
// this is what makes a plan to a point just rewound to empty.
//
// toSeq must be one of the points; otherwise the error wraps ErrNotAPoint.
// An error is also returned when root cannot be opened; a file that cannot
// be read is a conflict with its Error set, never an error of the plan.
func (s *State) Plan(root string, toSeq uint64) (Plan, error) {
	type pending struct{ path, restore, left string }
	var todo []pending
	plan := Plan{ToSeq: toSeq}

	s.mu.Lock()
	s.loadPoints()
	if s.olderErr != nil {
		s.mu.Unlock()
		return Plan{}, s.olderErr
	}
	i := sort.Search(len(s.points), func(i int) bool { return s.points[i].Seq >= toSeq })
	if i == len(s.points) || s.points[i].Seq != toSeq {
		s.mu.Unlock()
		return Plan{}, fmt.Errorf("%w: seq %d", ErrNotAPoint, toSeq)
	}
	for p, ws := range s.files {
		if j := firstAfter(ws, toSeq); j < len(ws) {
			todo = append(todo, pending{path: p, restore: ws[j].before, left: ws[len(ws)-1].after})
		}
	}
	j := sort.Search(len(s.calls), func(j int) bool { return s.calls[j].Seq > toSeq })
	plan.NotUndoable = append([]Call(nil), s.calls[j:]...)
	s.mu.Unlock()

	// The disk is read outside the lock: events keep being applied while
	// files are hashed.
	r, err := os.OpenRoot(root)
	if err != nil {
		return Plan{}, fmt.Errorf("checkpoint: plan: %w", err)
	}
	defer r.Close()
	buf := make([]byte, 64<<10) // one read buffer for every file hashed
	for _, p := range todo {
		f := FilePlan{Path: p.path, Restore: p.restore, Left: p.left, Status: StatusConflict}
		cur, err := currentHash(r, p.path, buf)
		switch {
		case err != nil:
			f.Error = err.Error()
		case cur == p.restore:
			continue
		default:
			f.Current = cur
			if cur == p.left {
				f.Status = StatusOK
			}
		}
		plan.Files = append(plan.Files, f)
	}
	sort.Slice(plan.Files, func(a, b int) bool { return plan.Files[a].Path < plan.Files[b].Path })
	return plan, nil
}

// errOutside reports a path that does not stay under the root.
var errOutside = errors.New("path outside the project root")

// localName turns a plan's slash path into a name under the root, refusing
// absolute paths and paths with "..". os.Root refuses them too, and
// symbolic links leading out: this check is the first of two walls.
func localName(p string) (string, error) {
	name := filepath.FromSlash(p)
	if !filepath.IsLocal(name) {
		return "", errOutside
	}
	return name, nil
}

// currentHash hashes the file at p under r; "" when it does not exist.
// It streams through buf, so that planning never holds a large file in
// memory.
func currentHash(r *os.Root, p string, buf []byte) (string, error) {
	name, err := localName(p)
	if err != nil {
		return "", err
	}
	f, err := r.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	h := sha256.New()
	// Hiding the file's WriteTo makes CopyBuffer use buf instead of
	// allocating a buffer per file.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
