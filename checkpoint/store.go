package checkpoint

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/moteur/moteur/atrest"
)

// Errors of the Store, for errors.Is.
var (
	// ErrCorrupt reports a blob whose content no longer hashes to its id,
	// or a sealed blob that does not open under the store's key (cut,
	// changed, or put in another blob's place).
	ErrCorrupt = errors.New("checkpoint: corrupted blob")
	// ErrBadID reports an id that is not 64 lowercase hex characters.
	ErrBadID = errors.New("checkpoint: invalid blob id")
	// ErrNeedKey reports a blob that only the at-rest key can find or open,
	// asked of a store opened without one (Config.Clear).
	ErrNeedKey = errors.New("checkpoint: the blob is sealed and this store has no at-rest key")
)

// Config configures a Store.
type Config struct {
	// Dir holds the blobs: $MOTEUR_HOME/checkpoints.
	Dir string
	// Key is the at-rest key: every blob is sealed under its checkpoint
	// subkey and named under another (see the package documentation).
	// Required unless Clear is set.
	Key *atrest.Key
	// Clear opens the store without a key: blobs are written and read in
	// clear, as before the at-rest key existed. It is for tests and for a
	// data directory that has no key yet (a command that must not create
	// one, run before any session did); a clear store still reads the
	// clear blobs of any store, but none of the sealed ones (ErrNeedKey).
	// Asking for it is explicit so that a forgotten key can never mean
	// secrets written in clear.
	Clear bool
}

// sealedDir, under the store's directory, holds the sealed blobs; the
// two-hex-digit directories beside it hold the clear ones.
const sealedDir = "sealed"

// purposeNames is the subkey the names of sealed blobs are a MAC under: a
// purpose of its own, so that naming and sealing never share a key.
const purposeNames = "moteur checkpoint names v1"

// Store keeps file contents by SHA-256. It implements effect.Blobs and is
// safe for concurrent use, by several goroutines and by several processes
// sharing the directory: every write is a rename of a complete file, and
// two writers of one id write equivalent bytes (the same content, sealed
// under different nonces).
type Store struct {
	dir   string
	key   *atrest.Key // nil: a clear store
	names []byte      // the MAC key of sealed blob names; nil without key
}

// Open opens the store, creating its directory (0700) when needed.
func Open(cfg Config) (*Store, error) {
	if cfg.Dir == "" {
		return nil, errors.New("checkpoint: no store directory")
	}
	switch {
	case cfg.Key == nil && !cfg.Clear:
		return nil, errors.New("checkpoint: no at-rest key: the copies of files would be kept in clear (Config.Clear asks for that explicitly)")
	case cfg.Key != nil && cfg.Clear:
		return nil, errors.New("checkpoint: Config.Clear with a key: the store either seals or does not")
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
	s := &Store{dir: dir, key: cfg.Key}
	if cfg.Key != nil {
		s.names = cfg.Key.Subkey(purposeNames)
		sealed := filepath.Join(dir, sealedDir)
		if _, err := os.Stat(sealed); errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(sealed, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, fmt.Errorf("checkpoint: store directory: %w", err)
			}
			// Its name must be durable before any blob is renamed into it.
			if err := syncDir(dir); err != nil {
				return nil, fmt.Errorf("checkpoint: store directory: %w", err)
			}
		}
	}
	return s, nil
}

// HashOf returns the hex SHA-256 of data: a blob's id, and the hash a
// effect.Change records as After.
func HashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Put saves data and returns its id, the SHA-256 of data. Saving content
// already stored is a no-op, unless the stored copy is damaged: then it is
// replaced, so a later Put of the same content repairs the blob. With a
// key, the blob is sealed, and a clear copy an earlier version left of the
// same content is removed once the sealed one is on disk.
func (s *Store) Put(ctx context.Context, data []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("checkpoint: put: %w", err)
	}
	id := HashOf(data)
	if s.key == nil {
		final := s.clearPath(id)
		if old, err := os.ReadFile(final); err == nil && HashOf(old) == id {
			return id, nil
		}
		if err := s.write(final, data); err != nil {
			return "", fmt.Errorf("checkpoint: put %s: %w", id, err)
		}
		return id, nil
	}
	if err := s.putSealed(id, data); err != nil {
		return "", fmt.Errorf("checkpoint: put %s: %w", id, err)
	}
	s.dropClear(id)
	return id, nil
}

// putSealed writes data sealed under id, unless a sealed copy that opens
// to it is there already.
func (s *Store) putSealed(id string, data []byte) error {
	final := s.sealedPath(id)
	if old, err := os.ReadFile(final); err == nil {
		if _, err := s.open(id, final, old); err == nil {
			return nil
		}
	}
	// The id is authenticated with the content: a sealed blob moved to
	// another blob's name does not open there.
	sealed, err := s.key.Seal(atrest.PurposeCheckpoint, data, []byte(id))
	if err != nil {
		return err
	}
	return s.write(final, sealed)
}

// dropClear removes the clear copy of id, once a sealed copy of it is
// durable. A failure leaves a readable clear copy, which SealClear retries.
func (s *Store) dropClear(id string) {
	_ = os.Remove(s.clearPath(id))
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
		if err := syncDir(filepath.Dir(sub)); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(s.dir, tempPrefix+"*")
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

// tempPrefix starts the names of the temporary files of write.
const tempPrefix = ".put-"

// Get returns the content saved under id, after checking that it still
// hashes to id. An unknown id gives an error wrapping fs.ErrNotExist.
//
// With a key, the sealed copy is read first, then the clear copy an
// earlier version may have left; a sealed copy that does not open is
// reported (ErrCorrupt, or atrest.ErrWrongKey, naming the blob's file and
// the key's) unless a clear copy that hashes right is there too.
func (s *Store) Get(ctx context.Context, id string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: get: %w", err)
	}
	// The id becomes a path: only a well-formed hash may, so that no id
	// can name a file outside the store.
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q", ErrBadID, shorten(id))
	}
	if s.key == nil {
		data, err := s.getClear(id)
		if errors.Is(err, fs.ErrNotExist) && s.hasSealed() {
			return nil, fmt.Errorf("%w: blob %s is not among the clear blobs of %s, and the sealed ones can only be found and opened with the at-rest key: %w",
				ErrNeedKey, id, s.dir, err)
		}
		return data, err
	}
	data, err := s.getSealed(id)
	if err == nil {
		return data, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		// A clear copy left by an earlier version, if it still hashes to
		// id, is the content: it is returned rather than nothing.
		if clear, cerr := s.getClear(id); cerr == nil {
			return clear, nil
		}
		return nil, err
	}
	clear, cerr := s.getClear(id)
	if !errors.Is(cerr, fs.ErrNotExist) {
		return clear, cerr
	}
	// SealClear, here or in another process, may have sealed the clear
	// copy and removed it between the two reads above: the sealed copy is
	// looked for once more.
	if data, err = s.getSealed(id); !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	return nil, s.notFound(id)
}

// getSealed reads and opens the sealed copy of id.
func (s *Store) getSealed(id string) ([]byte, error) {
	file := s.sealedPath(id)
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: blob %s: %w", id, err)
	}
	return s.open(id, file, raw)
}

// open decrypts the sealed copy raw of id, read from file, and checks the
// content against id.
func (s *Store) open(id, file string, raw []byte) ([]byte, error) {
	data, err := s.key.Open(atrest.PurposeCheckpoint, raw, []byte(id))
	switch {
	case errors.Is(err, atrest.ErrWrongKey):
		// atrest's message names both keys and this key's file.
		return nil, fmt.Errorf("checkpoint: blob %s (%s): %w", id, file, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %s (%s) does not open under the at-rest key %s (%s): %w",
			ErrCorrupt, id, file, s.key.ID(), keyFile(s.key), err)
	}
	if got := HashOf(data); got != id {
		// Sealing authenticates id, so only a bug can get here.
		return nil, fmt.Errorf("%w: %s (%s) opens to content hashing to %s", ErrCorrupt, id, file, got)
	}
	return data, nil
}

// getClear reads the clear copy of id, as every version before the
// at-rest key wrote it, and checks it against id.
func (s *Store) getClear(id string) ([]byte, error) {
	file := s.clearPath(id)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: blob %s: %w", id, err)
	}
	if got := HashOf(data); got != id {
		return nil, fmt.Errorf("%w: %s (%s: its content hashes to %s)", ErrCorrupt, id, file, got)
	}
	return data, nil
}

// notFound is the error of a keyed Get that found id nowhere. When the
// sealed blobs there were sealed with another key, it says so: their names
// are a MAC under the key, so with the wrong key none is ever found, and
// "not found" alone would hide the cause.
func (s *Store) notFound(id string) error {
	if other := s.otherKey(); other != nil {
		return fmt.Errorf("checkpoint: blob %s not found (%w): the blobs of %s are %w", id, fs.ErrNotExist, s.dir, other)
	}
	return fmt.Errorf("checkpoint: blob %s is not in %s, sealed or in clear: %w", id, s.dir, fs.ErrNotExist)
}

// otherKey returns atrest's ErrWrongKey error for the first sealed blob of
// the store that another key sealed (nil when the first one read is this
// key's, or there is none). Only the blob's header is opened.
func (s *Store) otherKey() error {
	root := filepath.Join(s.dir, sealedDir)
	subs, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	for _, sub := range subs {
		if !sub.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, sub.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			head := make([]byte, atrest.Overhead)
			fh, err := os.Open(filepath.Join(root, sub.Name(), f.Name()))
			if err != nil {
				continue
			}
			n, _ := fh.Read(head)
			_ = fh.Close()
			if n < len(head) {
				continue
			}
			// The header alone never decrypts: Open reports another key
			// before it tries, and damage otherwise.
			if _, err := s.key.Open(atrest.PurposeCheckpoint, head, nil); errors.Is(err, atrest.ErrWrongKey) {
				return err
			}
			return nil
		}
	}
	return nil
}

// hasSealed reports whether the store holds a sealed blob.
func (s *Store) hasSealed() bool {
	subs, err := os.ReadDir(filepath.Join(s.dir, sealedDir))
	if err != nil {
		return false
	}
	for _, sub := range subs {
		if files, err := os.ReadDir(filepath.Join(s.dir, sealedDir, sub.Name())); err == nil && len(files) > 0 {
			return true
		}
	}
	return false
}

// SealClear seals the clear blobs earlier versions left in the store, and
// removes each clear copy once its sealed copy is durable, so that the
// directory stops holding file contents in clear. It also removes
// temporary files older than an hour, which only a Put interrupted by a
// crash leaves (an earlier version's held clear content). A clear blob
// that no longer hashes to its name is left as it is: Get reports it,
// nothing is lost. It returns how many blobs it sealed; with nothing to
// do, it costs one read of the store's directory (and of the damaged clear
// blobs left there, if any). It needs a key.
//
// Blobs stay readable throughout, by this process and by others: Get
// looks for the sealed copy again when the clear one has just gone.
func (s *Store) SealClear(ctx context.Context) (int, error) {
	if s.key == nil {
		return 0, errors.New("checkpoint: seal the clear blobs: this store has no at-rest key")
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: seal the clear blobs: %w", err)
	}
	var errs []error
	sealed := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		name := e.Name()
		switch {
		case strings.HasPrefix(name, tempPrefix) && !e.IsDir():
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTemp {
				if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		case e.IsDir() && isHex(name, 2):
			n, err := s.sealFanOut(ctx, name)
			sealed += n
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return sealed, fmt.Errorf("checkpoint: seal the clear blobs of %s: %w", s.dir, err)
	}
	return sealed, nil
}

// staleTemp is the age past which a temporary file of the store is a
// leftover: a live Put keeps one for the time of a write and an fsync.
const staleTemp = time.Hour

// sealFanOut seals the clear blobs of one fan-out directory, then removes
// the directory if that left it empty.
func (s *Store) sealFanOut(ctx context.Context, sub string) (int, error) {
	dir := filepath.Join(s.dir, sub)
	files, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		id := sub + f.Name()
		if f.IsDir() || !validID(id) {
			continue
		}
		data, err := s.getClear(id)
		if err != nil {
			// Damaged (ErrCorrupt) or gone: nothing to seal.
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		if err := s.putSealed(id, data); err != nil {
			errs = append(errs, fmt.Errorf("blob %s: %w", id, err))
			continue
		}
		if err := os.Remove(s.clearPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if n > 0 {
		_ = syncDir(dir)
	}
	// Only an empty directory goes; a damaged blob keeps its own.
	if err := os.Remove(dir); err == nil {
		_ = syncDir(s.dir)
	}
	return n, errors.Join(errs...)
}

// clearPath fans clear blobs out by the first two hex digits of their id,
// as Git does, so that no directory grows to hundreds of thousands of
// entries.
func (s *Store) clearPath(id string) string {
	return filepath.Join(s.dir, id[:2], id[2:])
}

// sealedPath is where the sealed copy of id lives: its name is a MAC of id
// under the store's key, not id, so that the names in a copy of the
// directory confirm no guess of a file's content.
func (s *Store) sealedPath(id string) string {
	m := hmac.New(sha256.New, s.names)
	m.Write([]byte(id))
	name := hex.EncodeToString(m.Sum(nil))
	return filepath.Join(s.dir, sealedDir, name[:2], name[2:])
}

// keyFile describes where the key came from, for messages.
func keyFile(k *atrest.Key) string {
	if k.Path() == "" {
		return "a key given directly"
	}
	return "key file " + k.Path()
}

func validID(id string) bool { return isHex(id, sha256.Size*2) }

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
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
