package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moteur/moteur/event"
)

// Outcomes of a rewind for one file, as event.RewoundFile.Status records
// them. State reads ok and overwritten back: those files were restored.
const (
	RewoundOK          = "ok"          // restored
	RewoundOverwritten = "overwritten" // a conflict the user chose to overwrite, restored
	RewoundSkipped     = "skipped"     // a conflict left alone
	RewoundFailed      = "failed"      // not restored, Error says why; the file is untouched
)

// errChangedSincePreview is the one message for every mismatch between the
// plan carried out and the plan shown: the user did not approve this.
const errChangedSincePreview = "changed since the plan was shown"

// Apply carries out plan, the rewind the user approved as preview, on the
// files under root, restoring contents from blobs. It returns one outcome
// per file of plan, in plan's order; a failure on one file never stops the
// others.
//
// Only the files of plan are considered, and each is touched only when
//   - preview holds the same entry (same ToSeq, Status, Restore, Left,
//     Current), so that nothing is done that the user was not shown;
//   - it is ok, or a conflict whose path is in overwrite (else skipped);
//   - its path stays under root (absolute paths, "..", and symbolic links
//     leading out are refused, whatever produced the plan);
//   - right before it is touched, the disk still holds Current: a change
//     made after the plan was computed is never clobbered (a window of a
//     few system calls remains between that check and the rename, which no
//     portable file API closes).
//
// Before a file is replaced or deleted, its current content is saved in
// blobs (a rewind is itself a write that may be rewound: see
// State.rewound); if that fails, the file is not touched. A restored file
// is written atomically (temporary file, fsync, rename), keeping the mode
// of the file it replaces; a file that did not exist gets 0644 and any
// missing parent directories 0755 (before the umask), what the rewind
// cannot know being the common case. Directories a deleted file leaves
// empty are kept: this session may not have created them.
func Apply(ctx context.Context, root string, blobs effect.Blobs, plan, preview Plan, overwrite []string) []event.RewoundFile {
	shown := make(map[string]FilePlan, len(preview.Files))
	for _, f := range preview.Files {
		shown[f.Path] = f
	}
	forced := make(map[string]bool, len(overwrite))
	for _, p := range overwrite {
		forced[p] = true
	}
	r, rootErr := os.OpenRoot(root)
	if rootErr == nil {
		defer r.Close()
	}
	out := make([]event.RewoundFile, 0, len(plan.Files))
	for _, f := range plan.Files {
		res := event.RewoundFile{Path: f.Path}
		prev, ok := shown[f.Path]
		switch {
		case !ok || prev != f || preview.ToSeq != plan.ToSeq:
			res.Status, res.Error = RewoundFailed, errChangedSincePreview
		case f.Status == StatusConflict && !forced[f.Path]:
			res.Status = RewoundSkipped
		case f.Status != StatusOK && f.Status != StatusConflict:
			res.Status, res.Error = RewoundFailed, fmt.Sprintf("unknown status %q", f.Status)
		case rootErr != nil:
			res.Status, res.Error = RewoundFailed, rootErr.Error()
		default:
			if err := restore(ctx, r, blobs, f); err != nil {
				res.Status, res.Error = RewoundFailed, err.Error()
			} else if f.Status == StatusConflict {
				res.Status = RewoundOverwritten
			} else {
				res.Status = RewoundOK
			}
		}
		out = append(out, res)
	}
	return out
}

// restore brings one file back to f.Restore, after checking that the disk
// still holds f.Current and saving what it holds.
func restore(ctx context.Context, r *os.Root, blobs effect.Blobs, f FilePlan) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	name, err := localName(f.Path)
	if err != nil {
		return err
	}
	if f.Error != "" {
		// Unreadable when planned: its content was never checked, so
		// there is nothing to re-check it against.
		return fmt.Errorf("could not be read when the plan was made: %s", f.Error)
	}
	data, err := r.ReadFile(name)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading it: %w", err)
	}
	cur := ""
	if exists {
		cur = HashOf(data)
	}
	if cur != f.Current {
		return errors.New("changed on disk since the plan was made")
	}
	if cur == f.Restore {
		return nil
	}
	if exists {
		id, err := blobs.Put(ctx, data)
		if err != nil {
			return fmt.Errorf("saving its current content: %w", err)
		}
		if id != cur {
			return fmt.Errorf("saving its current content: the store answered %s for content hashing to %s", id, cur)
		}
	}
	if f.Restore == "" {
		if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("deleting it: %w", err)
		}
		syncParent(r, name)
		return nil
	}
	content, err := blobs.Get(ctx, f.Restore)
	if err != nil {
		return fmt.Errorf("content at the point: %w", err)
	}
	// Blobs is an interface: whatever store answers, only the exact
	// content of the point is ever written.
	if got := HashOf(content); got != f.Restore {
		return fmt.Errorf("content at the point: %s hashes to %s", f.Restore, got)
	}
	if err := writeAtomic(r, name, content); err != nil {
		return fmt.Errorf("writing it: %w", err)
	}
	return nil
}

// writeAtomic replaces name under r with data: readers see the old content
// or the new one, never a part.
func writeAtomic(r *os.Root, name string, data []byte) (err error) {
	mode := fs.FileMode(0o644)
	if fi, err := r.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", filepath.ToSlash(name))
		}
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(name)
	if err := r.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
	// Hidden, next to the file (same directory, so the rename is atomic),
	// and named after it, so that a leftover is recognisable.
	tmp := filepath.Join(dir, "."+filepath.Base(name)+".rewind-"+hex.EncodeToString(rnd[:]))
	t, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = t.Close()
			_ = r.Remove(tmp)
		}
	}()
	if _, err := t.Write(data); err != nil {
		return err
	}
	if err := t.Chmod(mode); err != nil {
		return err
	}
	if err := t.Sync(); err != nil {
		return err
	}
	if err := t.Close(); err != nil {
		return err
	}
	if err := r.Rename(tmp, name); err != nil {
		return err
	}
	syncParent(r, name)
	return nil
}

// syncParent makes a rename or a removal under r durable, as far as it
// can: the file has changed by then, so a failure here must not report the
// file as untouched (State would then keep a stale Left). Windows cannot
// sync a directory at all.
func syncParent(r *os.Root, name string) {
	if isWindows {
		return
	}
	d, err := r.Open(filepath.Dir(name))
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
