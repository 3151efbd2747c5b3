package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Errors of the Store, for errors.Is.
var (
	// ErrCorrupt reports a blob whose content no longer hashes to its id.
	ErrCorrupt = errors.New("checkpoint: corrupted blob")
	// ErrBadID reports an id that is not 64 lowercase hex characters.
	ErrBadID = errors.New("checkpoint: invalid blob id")
)

// Config configures a Store.
type Config struct {
	// Dir holds the blobs: $MOTEUR_HOME/checkpoints.
	Dir string
}

// Store keeps file contents by SHA-256, content-addressed under its
// directory. It implements tools.Blobs and is safe for concurrent use, by
// several goroutines and by several processes sharing the directory: every
// write is a rename of a complete file, and two writers of one id write the
// same bytes.
type Store struct {
	dir string
}

// Open opens the store, creating its directory (0700) when needed.
func Open(cfg Config) (*Store, error) {
	if cfg.Dir == "" {
		return nil, errors.New("checkpoint: no store directory")
	}
	// Absolute, so that a later change of working directory cannot move
	// the store under the engine's feet.
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: store directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("checkpoint: store directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: store directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint: store directory %s is not a directory", dir)
	}
	return &Store{dir: dir}, nil
}

// HashOf returns the hex SHA-256 of data: a blob's id, and the hash a
// tools.Change records as After.
func HashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Put saves data and returns its id. Saving content already stored is a
// no-op, unless the stored copy is damaged: then it is replaced, so a
// later Put of the same content repairs the blob.
func (s *Store) Put(ctx context.Context, data []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("checkpoint: put: %w", err)
	}
	id := HashOf(data)
	final := s.path(id)
	if old, err := os.ReadFile(final); err == nil && HashOf(old) == id {
		return id, nil
	}
	if err := s.write(final, data); err != nil {
		return "", fmt.Errorf("checkpoint: put %s: %w", id, err)
	}
	return id, nil
}

// write puts data at final atomically and durably: temp file in the
// store's directory (same file system, so the rename is atomic), fsync,
// rename, fsync of the directory that received the name.
func (s *Store) write(final string, data []byte) (err error) {
	sub := filepath.Dir(final)
	_, statErr := os.Stat(sub)
	if err := os.MkdirAll(sub, 0o700); err != nil {
		return err
	}
	if statErr != nil {
		// A new fan-out directory: its own name must be durable too.
		if err := syncDir(s.dir); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	// CreateTemp already makes the file 0600; say it, so that a change of
	// CreateTemp's default could never widen a copy of sensitive data.
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return err
	}
	return syncDir(sub)
}

// Get returns the content saved under id, after checking that it still
// hashes to id. An unknown id gives an error wrapping fs.ErrNotExist.
func (s *Store) Get(ctx context.Context, id string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: get: %w", err)
	}
	// The id becomes a path: only a well-formed hash may, so that no id
	// can name a file outside the store.
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrBadID, shorten(id))
	}
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: blob %s: %w", id, err)
	}
	if got := HashOf(data); got != id {
		return nil, fmt.Errorf("%w: %s (its content hashes to %s)", ErrCorrupt, id, got)
	}
	return data, nil
}

// path fans blobs out by their first two hex digits, as Git does, so that
// no directory grows to hundreds of thousands of entries.
func (s *Store) path(id string) string {
	return filepath.Join(s.dir, id[:2], id[2:])
}

func validID(id string) bool {
	if len(id) != sha256.Size*2 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// shorten keeps an error message bounded whatever id a caller passed.
func shorten(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// syncDir makes the names in dir durable (a rename is only durable once
// its directory is synced).
func syncDir(dir string) error {
	if isWindows {
		// Windows cannot fsync a directory; its renames are journaled.
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

const isWindows = runtime.GOOS == "windows"
