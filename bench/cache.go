package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	"github.com/moteur/moteur/kb"
)

// cached returns path, building it with build (given a path beside it to
// write to) when it is not there yet. The build is renamed into place, so
// that a process stopped half-way leaves nothing a later one would trust.
func cached(path string, build func(tmp string) error) (string, error) {
	if _, err := os.Stat(path); err == nil {
		return path, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	tmp := fmt.Sprintf("%s.build-%d", path, os.Getpid())
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("cache %s: %w", path, err)
	}
	return path, nil
}

// kbSourceHash hashes the source of Moteur's kb packages this binary was
// built from, so that a base cached by another version of Moteur is built
// again; "" when the source cannot be found (a -trimpath build): nothing
// is cached then.
func kbSourceHash() string {
	pc := reflect.ValueOf(kb.Open).Pointer()
	file, _ := runtime.FuncForPC(pc).FileLine(pc)
	dir := filepath.Dir(file)
	if _, err := os.Stat(filepath.Join(dir, "store.go")); err != nil {
		return ""
	}
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
