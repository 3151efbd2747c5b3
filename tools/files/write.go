package files

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/moteur/moteur/effect"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moteur/moteur/tools"
)

// Write limits.
const (
	// maxWriteBytes bounds a file this package writes, whatever the call
	// (overwrite, append, edit): beyond it the model is better served by a
	// generator script than by a tool argument.
	maxWriteBytes = 8 << 20
	// maxKeepBytes bounds the existing file an overwrite may replace: its
	// content is read into memory to be saved for rewinds first.
	maxKeepBytes = 64 << 20
)

// Write modes.
const (
	modeOverwrite = "overwrite"
	modeAppend    = "append"
)

const writeDescription = `Write a text file of the project: create it, replace its content, or append to it.

- path: relative to the project root (or absolute inside it). Missing parent directories are created.
- content: the text to write.
- mode: "overwrite" (default) replaces the whole file with content; "append" adds content at the end (creating the file if needed). Append does not add a newline for you.

A file is at most 8 MiB (8388608 bytes) after the write; a larger write is refused. The write is atomic: the file holds either the old or the new content, never a mix. Its permissions are kept.

To change part of an existing file, prefer edit_file: it sends only the changed text and fails safely if the file is not what you expect. Overwriting a file you did not create in this project may need the user's approval.`

const writeSchema = `{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "description": "File to write, relative to the project root."},
    "content": {"type": "string", "description": "The text to write (at most 8 MiB)."},
    "mode": {"type": "string", "enum": ["overwrite", "append"], "description": "overwrite (default) replaces the file; append adds content at its end."}
  },
  "required": ["path", "content"]
}`

// WriteFile is the write_file tool.
type WriteFile struct{ s *Set }

// Name implements tools.Tool.
func (*WriteFile) Name() string { return WriteFileName }

// Description implements tools.Tool.
func (*WriteFile) Description() string { return writeDescription }

// Schema implements tools.Tool.
func (*WriteFile) Schema() json.RawMessage { return json.RawMessage(writeSchema) }

// Risk implements tools.Tool; RiskOf refines it per call.
func (*WriteFile) Risk() effect.Risk { return effect.RiskWrite }

// Concurrent implements tools.Tool: calls on one path are serialised by
// the set's per-path lock, so calls of a round may run in parallel.
func (*WriteFile) Concurrent() bool { return true }

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
	Mode    string  `json:"mode"`
}

// RiskOf implements tools.RiskAssessor. Overwriting an existing file that
// this set did not create loses work that is not the agent's own (a rewind
// may bring it back, but only if the checkpoint store keeps it), so it is
// destructive; creating a file, appending, or overwriting a file this set
// created (in any session) is an ordinary write. Arguments it cannot read
// are rated destructive: the engine may still repair them into a valid
// overwrite.
func (t *WriteFile) RiskOf(args json.RawMessage) effect.Risk {
	var a writeArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return effect.RiskDestructive
	}
	if a.Mode == modeAppend {
		return effect.RiskWrite
	}
	tg, err := t.s.resolve(a.Path)
	if err != nil {
		return effect.RiskWrite // Execute refuses the call: nothing happens
	}
	if _, err := t.s.dir.Lstat(tg.os()); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return effect.RiskWrite
		}
		return effect.RiskDestructive // cannot tell: assume the worst
	}
	if t.s.wasCreated(tg.rel) {
		return effect.RiskWrite
	}
	return effect.RiskDestructive
}

// Execute writes the file.
func (t *WriteFile) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a writeArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, fmt.Errorf("write_file: %w", err)
	}
	if a.Content == nil {
		return tools.Result{}, errors.New("write_file: content is required")
	}
	switch a.Mode {
	case "":
		a.Mode = modeOverwrite
	case modeOverwrite, modeAppend:
	default:
		return tools.Result{}, fmt.Errorf("write_file: mode must be %q or %q, got %q", modeOverwrite, modeAppend, a.Mode)
	}
	if len(*a.Content) > maxWriteBytes {
		return tools.Result{}, fmt.Errorf("write_file: content is %d bytes, over the %d-byte (8 MiB) limit of a file", len(*a.Content), maxWriteBytes)
	}
	res, rule, err := t.s.write(ctx, a.Path, []byte(*a.Content), a.Mode == modeAppend)
	return answer(WriteFileName, res, rule, err)
}

// write returns the call's result and, once the file is written, its
// classification rule: the summary speaks of its content (its size, what
// it was). Its errors say nothing of the content and carry no rule.
func (s *Set) write(ctx context.Context, path string, content []byte, appending bool) (tools.Result, string, error) {
	tg, err := s.resolve(path)
	if err != nil {
		return tools.Result{}, "", err
	}
	if err := s.refuseSkill(WriteFileName, tg); err != nil {
		return tools.Result{}, "", err
	}
	unlock, err := s.locks.lock(ctx, tg.rel)
	if err != nil {
		return tools.Result{}, "", err
	}
	defer unlock()

	// The old content is needed to append to it, and to keep it for
	// rewinds; an overwrite without a blob store only needs to know the
	// file is there.
	limit := int64(maxKeepBytes)
	if appending {
		limit = int64(maxWriteBytes - len(content))
	}
	cur, err := s.current(tg, limit, appending || s.blobs != nil)
	if err != nil {
		return tools.Result{}, "", err
	}
	data := content
	if appending && cur.exists {
		data = make([]byte, 0, len(cur.data)+len(content))
		data = append(append(data, cur.data...), content...)
	}
	change, err := s.commit(ctx, tg, cur, data)
	if err != nil {
		return tools.Result{}, "", err
	}
	var msg string
	switch {
	case !cur.exists:
		msg = fmt.Sprintf("Created %s (%d bytes).", tg.rel, len(data))
	case appending:
		msg = fmt.Sprintf("Appended %d bytes to %s (now %d bytes).", len(content), tg.rel, len(data))
	default:
		msg = fmt.Sprintf("Overwrote %s (%d bytes, was %d).", tg.rel, len(data), cur.size)
	}
	return tools.Result{Content: msg, Changes: []effect.Change{change}}, s.classified(tg.rel), nil
}

// existing is what a write finds at its path before changing it.
type existing struct {
	exists bool
	size   int64
	perm   fs.FileMode
	data   []byte // nil unless read
}

// current looks at the file a write is about to replace, under the path's
// lock. It refuses what is not a regular file, and a file over limit bytes
// (when read is set, the content is then read whole).
func (s *Set) current(tg target, limit int64, read bool) (existing, error) {
	fi, err := s.dir.Lstat(tg.os())
	if errors.Is(err, fs.ErrNotExist) {
		return existing{}, nil
	}
	if err != nil {
		return existing{}, describe(tg, "stat", err)
	}
	if fi.IsDir() {
		return existing{}, fmt.Errorf("%s is a directory", tg.arg)
	}
	if !fi.Mode().IsRegular() {
		return existing{}, fmt.Errorf("%s is not a regular file (%s)", tg.arg, fi.Mode().Type())
	}
	cur := existing{exists: true, size: fi.Size(), perm: fi.Mode().Perm()}
	if !read {
		return cur, nil
	}
	if fi.Size() > limit {
		return existing{}, tooLarge(tg, fi.Size(), limit)
	}
	f, err := s.dir.Open(tg.os())
	if err != nil {
		return existing{}, describe(tg, "read", err)
	}
	defer f.Close()
	// limit+1 so that a file that grew since the Lstat is caught.
	cur.data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return existing{}, describe(tg, "read", err)
	}
	if int64(len(cur.data)) > limit {
		return existing{}, tooLarge(tg, int64(len(cur.data)), limit)
	}
	cur.size = int64(len(cur.data))
	return cur, nil
}

func tooLarge(tg target, size, limit int64) error {
	if limit < 0 {
		limit = 0
	}
	return fmt.Errorf("%s is %d bytes; this call may handle at most %d: the file would exceed the 8 MiB limit or is too large to be kept for rewinds", tg.arg, size, limit)
}

// commit saves cur's content for rewinds, then atomically replaces the
// file with data. The caller holds the path's lock.
func (s *Set) commit(ctx context.Context, tg target, cur existing, data []byte) (effect.Change, error) {
	if len(data) > maxWriteBytes {
		return effect.Change{}, fmt.Errorf("%s would be %d bytes, over the %d-byte (8 MiB) limit", tg.arg, len(data), maxWriteBytes)
	}
	change := effect.Change{Path: tg.rel, After: sum(data)}
	if cur.exists && s.blobs != nil {
		// Before the file changes, never after: a content that could not
		// be kept must not be lost.
		id, err := s.blobs.Put(ctx, cur.data)
		if err != nil {
			return effect.Change{}, fmt.Errorf("%s left unchanged: saving its current content for rewinds failed: %w", tg.arg, err)
		}
		change.Before = id
	}
	if err := s.replace(ctx, tg, data, cur); err != nil {
		return effect.Change{}, err
	}
	if !cur.exists {
		s.markCreated(tg.rel)
	}
	return change, nil
}

// replace writes data to a temporary file next to the target and renames
// it over: a crash or a concurrent reader sees the old or the new content,
// never a mix. The cache epoch is bumped on both sides of the rename (see
// fileCache).
func (s *Set) replace(ctx context.Context, tg target, data []byte, cur existing) (err error) {
	name := tg.os()
	dir := filepath.Dir(name)
	if !cur.exists && dir != "." {
		if err := s.dir.MkdirAll(dir, 0o755); err != nil {
			return describe(tg, "create the directory of", err)
		}
	}
	// The random part keeps two writers (this set's, or another process's)
	// from sharing a temporary file; O_EXCL makes sure of it.
	tmp := filepath.Join(dir, "."+filepath.Base(name)+".tmp-"+rand.Text()[:12])
	perm := fs.FileMode(0o644)
	if cur.exists {
		perm = cur.perm
	}
	f, err := s.dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return describe(tg, "write", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = s.dir.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return describe(tg, "write", err)
	}
	// Synced before the rename, so that after a crash the name holds the
	// old content or the whole new one, not an empty file. The directory
	// itself is not synced: losing the rename in a crash leaves the old
	// content, which is consistent.
	if !s.noSync {
		if err := f.Sync(); err != nil {
			return describe(tg, "write", err)
		}
	}
	if err := f.Close(); err != nil {
		return describe(tg, "write", err)
	}
	if cur.exists {
		// OpenFile's mode went through the umask; the file keeps exactly
		// the permissions it had.
		if err := s.dir.Chmod(tmp, perm); err != nil {
			return describe(tg, "write", err)
		}
	}
	// The rename is the commit point. A call past its deadline has been
	// reported to the model as failed (the registry does not wait for
	// it): it must not change the file behind that report, unrecorded.
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s left unchanged: %w", tg.arg, context.Cause(ctx))
	}
	s.cache.bump(tg.rel)
	defer s.cache.bump(tg.rel)
	if err := s.dir.Rename(tmp, name); err != nil {
		return describe(tg, "write", err)
	}
	return nil
}
