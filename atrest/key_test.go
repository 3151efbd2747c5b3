package atrest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestLoadOrCreateMakesAPrivateKeyAndLoadsItAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "moteur", FileName)
	k, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Size() != Size {
		t.Fatalf("key file mode %v size %d, want 0600 and %d bytes", fi.Mode().Perm(), fi.Size(), Size)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("key directory mode %v, want 0700", di.Mode().Perm())
	}
	again, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Equal(again) || k.ID() != again.ID() {
		t.Fatal("a second LoadOrCreate made another key")
	}
	if bytes.Equal(k.Subkey(PurposeAudit), k.Subkey(PurposeCheckpoint)) {
		t.Fatal("two purposes share a subkey")
	}
}

func TestConcurrentCreatorsAgreeOnOneKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	keys := make([]*Key, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadOrCreate(path)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if k == nil || !k.Equal(keys[0]) {
			t.Fatal("concurrent creators ended with different keys")
		}
	}
}

func TestLoadRefusesWhatIsNotAKey(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing")); !errors.Is(err, ErrNoKey) {
		t.Fatalf("missing file: %v, want ErrNoKey", err)
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(short); !errors.Is(err, ErrBadKey) {
		t.Fatalf("short file: %v, want ErrBadKey", err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, make([]byte, Size), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(open)
	if !errors.Is(err, ErrBadKey) || !bytes.Contains([]byte(err.Error()), []byte("chmod 600")) {
		t.Fatalf("world-readable file: %v, want ErrBadKey saying chmod 600", err)
	}
}

func TestSealOpensOnlyWithTheSameKeyPurposeAndContext(t *testing.T) {
	k, _ := New(bytes.Repeat([]byte{1}, Size))
	other, _ := New(bytes.Repeat([]byte{2}, Size))
	plain := []byte("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
	sealed, err := k.Seal(PurposeCheckpoint, plain, []byte("blob-1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, plain[:20]) || !IsSealed(sealed) || len(sealed) != len(plain)+Overhead {
		t.Fatal("sealed value shows its plaintext or has the wrong layout")
	}
	got, err := k.Open(PurposeCheckpoint, sealed, []byte("blob-1"))
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open: %q, %v", got, err)
	}
	if _, err := other.Open(PurposeCheckpoint, sealed, []byte("blob-1")); !errors.Is(err, ErrWrongKey) {
		t.Errorf("other key: %v, want ErrWrongKey", err)
	}
	if _, err := k.Open(PurposeAudit, sealed, []byte("blob-1")); !errors.Is(err, ErrDamaged) {
		t.Errorf("other purpose: %v, want ErrDamaged", err)
	}
	if _, err := k.Open(PurposeCheckpoint, sealed, []byte("blob-2")); !errors.Is(err, ErrDamaged) {
		t.Errorf("other context: %v, want ErrDamaged", err)
	}
	flipped := bytes.Clone(sealed)
	flipped[len(flipped)-1] ^= 1
	if _, err := k.Open(PurposeCheckpoint, flipped, []byte("blob-1")); !errors.Is(err, ErrDamaged) {
		t.Errorf("flipped byte: %v, want ErrDamaged", err)
	}
	if IsSealed(plain) {
		t.Error("a clear value passes for a sealed one")
	}
}

func TestCheckOutsideRefusesAKeyInTheDataDirectory(t *testing.T) {
	home := t.TempDir()
	if err := CheckOutside(filepath.Join(home, "sub", "key"), home); !errors.Is(err, ErrBadKey) {
		t.Fatalf("key inside data dir: %v, want ErrBadKey", err)
	}
	if err := CheckOutside(filepath.Join(t.TempDir(), "key"), home); err != nil {
		t.Fatalf("key elsewhere: %v", err)
	}
	if err := CheckOutside(home+"-other/key", home); err != nil {
		t.Fatalf("sibling directory with a common prefix: %v", err)
	}
}

func BenchmarkSeal64KiB(b *testing.B) {
	k, _ := New(bytes.Repeat([]byte{1}, Size))
	data := bytes.Repeat([]byte("x"), 64<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Seal(PurposeCheckpoint, data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
