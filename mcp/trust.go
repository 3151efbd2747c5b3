package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/moteur/moteur/atomicfile"
)

// A project's .mcp.json runs programs that arrived with the code, so its
// servers start only once the user has trusted that file's content. The
// TrustStore remembers the decision per project root and per SHA-256 of the
// content: a changed file is a new question.

// maxTrustedSums bounds what is kept per project: the last few contents
// (a branch switched back and forth) stay trusted.
const maxTrustedSums = 16

// TrustStoreConfig configures a TrustStore.
type TrustStoreConfig struct {
	// Path is the file, normally <data dir>/mcp-trust.json. It is written
	// with mode 0600, atomically (a temporary file renamed over it).
	Path string
	// Now is the clock recorded with each decision; nil uses time.Now.
	Now func() time.Time
}

// TrustStore is the record of trusted project files. It is safe for
// concurrent use in one process; it reads the file on every question, so
// a decision made by another process counts at once. Two processes
// trusting at the same instant may lose one of the two decisions, which
// only means being asked again (it fails closed).
type TrustStore struct {
	cfg TrustStoreConfig
	mu  sync.Mutex
}

// NewTrustStore returns the store kept in cfg.Path.
func NewTrustStore(cfg TrustStoreConfig) *TrustStore {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &TrustStore{cfg: cfg}
}

// trustFile is the file's content.
type trustFile struct {
	Version  int                       `json:"version"`
	Projects map[string][]trustedEntry `json:"projects"`
}

type trustedEntry struct {
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trusted_at"`
}

// Trusted reports whether the user trusted the content whose SHA-256 (hex)
// is sum for the project at projectRoot. A store that cannot be read
// trusts nothing.
func (s *TrustStore) Trusted(projectRoot, sum string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(f.Projects[canonicalRoot(projectRoot)], func(e trustedEntry) bool { return e.SHA256 == sum })
}

// Trust records that the user trusted that content for that project.
func (s *TrustStore) Trust(projectRoot, sum string) error {
	if len(sum) != 64 {
		return fmt.Errorf("trust %s: %q is not a SHA-256 in hex", projectRoot, sum)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := s.read()
	if err != nil {
		// Overwriting a file we cannot read would lose its decisions.
		return err
	}
	root := canonicalRoot(projectRoot)
	list := slices.DeleteFunc(f.Projects[root], func(e trustedEntry) bool { return e.SHA256 == sum })
	list = append(list, trustedEntry{SHA256: sum, TrustedAt: s.cfg.Now().UTC()})
	if len(list) > maxTrustedSums {
		list = list[len(list)-maxTrustedSums:]
	}
	f.Projects[root] = list
	return s.write(f)
}

func (s *TrustStore) read() (*trustFile, error) {
	f := &trustFile{Version: 1, Projects: map[string][]trustedEntry{}}
	data, err := os.ReadFile(s.cfg.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP trust store: %w", err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("MCP trust store %s: %w (remove the file to start again)", s.cfg.Path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string][]trustedEntry{}
	}
	return f, nil
}

// write replaces the file atomically: a crash leaves the old file or the
// new one, never half of one.
func (s *TrustStore) write(f *trustFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.cfg.Path), 0o700); err != nil {
		return fmt.Errorf("MCP trust store: %w", err)
	}
	if err := atomicfile.Write(s.cfg.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("MCP trust store: %w", err)
	}
	return nil
}
