package smallfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(path, 5); err != nil || string(b) != "12345" {
		t.Fatalf("%q, %v", b, err)
	}
	if _, err := Read(path, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v", err)
	}
	if _, err := Read(dir, 10); !errors.Is(err, ErrIsDir) {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("skipped: no FIFO here: %v", err)
	}
	// A FIFO with no writer would block an open: refused before.
	if _, err := Read(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
}
