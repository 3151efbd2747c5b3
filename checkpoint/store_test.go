package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/atrest"
)

// testKey is an at-rest key from a file of its own, as the command line
// loads one, so that messages name a key file.
func testKey(t testing.TB) *atrest.Key {
	t.Helper()
	k, err := atrest.LoadOrCreate(filepath.Join(t.TempDir(), "config", atrest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// openStore opens a sealing store in a new directory.
func openStore(t testing.TB) *Store {
	t.Helper()
	return openStoreAt(t, filepath.Join(t.TempDir(), "checkpoints"), testKey(t))
}

// openStoreAt opens the store of dir with key (nil: a clear store).
func openStoreAt(t testing.TB, dir string, key *atrest.Key) *Store {
	t.Helper()
	s, err := Open(Config{Dir: dir, Key: key, Clear: key == nil})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// blobFiles lists the blob files under the store (temporaries excluded).
func blobFiles(t *testing.T, s *Store) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestStorePutGet(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if fi, err := os.Stat(s.dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store dir: %v, %v; want mode 0700", fi, err)
	}
	data := []byte("bonjour\x00\xff les données\n")
	id, err := s.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	if id != HashOf(data) || len(id) != 64 {
		t.Fatalf("id %q, want the hex sha256 %q", id, HashOf(data))
	}
	got, err := s.Get(ctx, id)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %q, %v; want %q", got, err, data)
	}
	files := blobFiles(t, s)
	if len(files) != 1 {
		t.Fatalf("blob files %v, want one", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Fatalf("blob mode %v, want 0600", fi.Mode().Perm())
	}
	// Sealed, under a name that is not the content's hash.
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !atrest.IsSealed(raw) || bytes.Contains(raw, []byte("les données")) || len(raw) != len(data)+atrest.Overhead {
		t.Fatalf("blob file holds %q: want the content sealed", raw)
	}
	if strings.Contains(files[0], id[2:]) {
		t.Fatalf("blob file %s is named by the content's SHA-256", files[0])
	}

	// Idempotent: same id, still one file, content unchanged.
	id2, err := s.Put(ctx, data)
	if err != nil || id2 != id {
		t.Fatalf("second Put = %q, %v; want %q", id2, err, id)
	}
	if files := blobFiles(t, s); len(files) != 1 {
		t.Fatalf("after a second Put, blob files %v, want one", files)
	}

	// The empty content is a blob like any other.
	empty, err := s.Put(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, empty); err != nil || len(got) != 0 {
		t.Fatalf("empty blob: %q, %v", got, err)
	}
}

func TestStoreCorruptionDetected(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	data := []byte("contenu d'origine")
	id, err := s.Put(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	p := s.sealedPath(id)
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	raw[3] ^= 0x01
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, id)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), p) ||
		!strings.Contains(err.Error(), s.key.Path()) {
		t.Fatalf("Get of a flipped blob: %v; want ErrCorrupt naming %s, its file and the key file", err, id)
	}
	// Putting the same content again repairs it.
	if _, err := s.Put(ctx, data); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, id); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after repair: %q, %v", got, err)
	}
}

func TestStoreBadIDs(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	// A file a traversal would reach, to be sure none does.
	secret := filepath.Join(filepath.Dir(s.dir), "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	valid := HashOf([]byte("x"))
	for _, id := range []string{
		"",
		"../secret",
		"../../../../etc/passwd",
		valid[:63],
		valid + "0",
		strings.ToUpper(valid),
		"..//" + valid[4:],
		valid[:2] + "/" + valid[3:],
		strings.Repeat("g", 64),
	} {
		if _, err := s.Get(ctx, id); !errors.Is(err, ErrBadID) {
			t.Errorf("Get(%q) = %v; want ErrBadID", id, err)
		}
	}
	_, err := s.Get(ctx, valid)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get of an unknown id = %v; want fs.ErrNotExist", err)
	}
}

func TestStoreOpenRejectsEmptyDir(t *testing.T) {
	if _, err := Open(Config{}); err == nil {
		t.Fatal("Open with no directory succeeded")
	}
}
