package atrest

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Size is the length of a key, in bytes.
const Size = 32

// FileName is the key file's name in the user's configuration directory.
const FileName = "key"

// Purposes of the subkeys: one name for each use, never two uses for one.
const (
	PurposeAudit      = "moteur audit chain v1"
	PurposeCheckpoint = "moteur checkpoint v1"
)

// Errors a key file may give; test them with errors.Is.
var (
	// ErrNoKey: the key file does not exist.
	ErrNoKey = errors.New("at-rest key file not found")
	// ErrBadKey: the key file exists but cannot be used as it is (its
	// size, its mode, a directory).
	ErrBadKey = errors.New("unusable at-rest key file")
)

// Key is the at-rest key loaded from its file.
type Key struct {
	path   string
	master [Size]byte
	id     string
}

// DefaultPath is the key file in the user's configuration directory
// (configDir is $XDG_CONFIG_HOME/moteur or its default).
func DefaultPath(configDir string) string { return filepath.Join(configDir, FileName) }

// Load reads the key at path. A missing file is ErrNoKey; a file that is
// not exactly Size bytes, or that others than its owner can read or write,
// is ErrBadKey with what to do about it. Both name the file.
func Load(path string) (*Key, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoKey, path)
	}
	if err != nil {
		return nil, fmt.Errorf("at-rest key %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrBadKey, path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o, so other users may read it; run chmod 600 %s", ErrBadKey, path, perm, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("at-rest key %s: %w", path, err)
	}
	if len(b) != Size {
		return nil, fmt.Errorf("%w: %s holds %d bytes, want %d (it was not written by Moteur, or was cut)", ErrBadKey, path, len(b), Size)
	}
	return newKey(path, b), nil
}

// LoadOrCreate loads the key at path, creating it (and its directory, 0700)
// with fresh random bytes when it does not exist yet. Two processes that
// create it at once agree: the file is created exclusively, and the loser
// loads the winner's.
func LoadOrCreate(path string) (*Key, error) {
	k, err := Load(path)
	if !errors.Is(err, ErrNoKey) {
		return k, err
	}
	var b [Size]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("at-rest key: random bytes: %w", err)
	}
	if err := create(path, b[:]); errors.Is(err, fs.ErrExist) {
		return Load(path)
	} else if err != nil {
		return nil, err
	}
	return newKey(path, b[:]), nil
}

// create writes a new key file durably: written and synced under a
// temporary name, then linked to path, which fails if path exists — no
// reader ever sees a partial key.
func create(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("at-rest key: create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("at-rest key: create %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("at-rest key: write %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("at-rest key: create %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

func newKey(path string, b []byte) *Key {
	k := &Key{path: path}
	copy(k.master[:], b)
	m := hmac.New(sha256.New, k.master[:])
	m.Write([]byte("moteur key id"))
	k.id = hex.EncodeToString(m.Sum(nil)[:8])
	return k
}

// New returns a key made of b (Size bytes), for tests and for keys an
// organisation hands over by other means than a file.
func New(b []byte) (*Key, error) {
	if len(b) != Size {
		return nil, fmt.Errorf("%w: %d bytes, want %d", ErrBadKey, len(b), Size)
	}
	return newKey("", b), nil
}

// Path is the file the key was loaded from ("" for New).
func (k *Key) Path() string { return k.path }

// ID names the key without revealing it: 16 hex digits, the same for the
// same key. Sealed values carry it, so that a value sealed with another key
// is told apart from a damaged one.
func (k *Key) ID() string { return k.id }

// Subkey derives the key of one purpose (HKDF-SHA-256, the purpose as info):
// Size bytes, the same for the same key and purpose.
func (k *Key) Subkey(purpose string) []byte {
	sub, err := hkdf.Key(sha256.New, k.master[:], nil, purpose, Size)
	if err != nil {
		// Only a length beyond 255 hash sizes fails; Size is fixed.
		panic("atrest: hkdf: " + err.Error())
	}
	return sub
}

// CheckOutside refuses a key file inside dir (the data directory): a copy of
// that directory would then carry the key with what it protects.
func CheckOutside(keyPath, dir string) error {
	kp, err1 := filepath.Abs(keyPath)
	d, err2 := filepath.Abs(dir)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("at-rest key: %w", err)
	}
	if rel, err := filepath.Rel(d, kp); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%w: %s is inside the data directory %s; keep it elsewhere (the user's configuration directory, or key_file in the organisation policy)", ErrBadKey, kp, d)
	}
	return nil
}

// Equal reports whether two keys are the same key.
func (k *Key) Equal(o *Key) bool {
	return o != nil && hmac.Equal(k.master[:], o.master[:])
}
