// Package files holds the agent's file tools: read_file, write_file,
// edit_file, list_files, glob and grep. Every one of them is confined to one
// directory, the project root: a path argument is relative to it or absolute
// inside it, and neither "..", an absolute path elsewhere, a NUL byte nor a
// symbolic link leading outside gets a tool past it (see confine.go).
//
// The tools share one Set: the root, the per-path locks that serialise the
// read-modify-write calls (append, edit) on one file, a content cache, and
// the list of files the set created, which decides whether an overwrite is
// destructive.
//
// Writes are atomic (a temporary file in the same directory, renamed over
// the target) and report a effect.Change per file: the content they replace
// is saved in Config.Blobs first, so that a rewind can bring it back, and a
// write whose previous content cannot be saved is refused.
//
// A write to a control file — one that makes programs run or grants rights:
// .git/config and .git/hooks/ (of the project's repository or of one nested
// in it), .moteur/, .mcp.json and the others of tools.ControlPaths — needs
// the user's confirmation in every mode: write_file and edit_file say so
// through tools.Confirmer, judging the path as the write resolves it
// (confirm.go).
//
// A file under a classified path (Config.Classify) is classified even when
// its text carries no marking: every result drawn from one names its rule in
// tools.Result.Classified, so that the session becomes sensitive (see
// classify.go). So is a file whose text carries a marking (Config.Markings)
// anywhere, when a result shows part of it. Secrets in a file's text are
// masked (package redact) before its lines are numbered or searched.
//
// What the package does not guard against: another process changing a file
// between two of our calls (each call sees a consistent file, and the cache
// is keyed on size and mtime, but an edit is only serialised against this
// set's own calls), hard links (an atomic rename replaces the link, not the
// shared inode), and file ownership (a rewritten file belongs to the engine's
// user).
package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/moteur/moteur/effect"
	"github.com/moteur/moteur/tools"
)

// Tool names, as the model calls them.
const (
	ReadFileName  = "read_file"
	WriteFileName = "write_file"
	EditFileName  = "edit_file"
	ListFilesName = "list_files"
	GlobName      = "glob"
	GrepName      = "grep"
)

// Config configures a Set.
type Config struct {
	// Root is the absolute path of the project root; required. The tools
	// reach nothing outside it.
	Root string
	// Blobs keeps the content a write replaces, for rewinds. With nil Blobs
	// changes are still reported, but Change.Before is "" for a file that
	// existed, exactly as for one that did not: such a change cannot be
	// rewound, so only leave it nil where rewinds are off.
	Blobs effect.Blobs
	// Now is the clock (nil: time.Now). The cache uses it to tell a file
	// written in the last moments, whose mtime cannot be trusted yet.
	Now func() time.Time
	// Classify tells whether a project file is classified (a path rule of
	// the configuration), and by which rule; nil classifies nothing. rel is
	// slash-separated, relative to the root, symbolic links resolved; a
	// directory's ends with "/" (list_files asks for the subdirectories it
	// lists). The tools ask for each file they name, not for the
	// directories above it: a file inside a classified directory must be
	// classified by Classify itself, as classify.Classifier.Path does.
	Classify func(rel string) (rule string, classified bool)
	// Markings tells whether a file's text carries a classification marking
	// (classify.Classifier.Text of the configuration), and which; nil: the
	// built-in markings. Every tool that shows or counts a file's text asks
	// it for the file's whole text (see classify.go).
	Markings func(text string) (marking string, found bool)
	// Skills serves read_file's skill:// addresses and names the skill
	// directories write_file and edit_file refuse (nil: no skills; see
	// skill.go).
	Skills SkillReader
	// Web serves read_file's web:// addresses, the session's web snapshots
	// (nil: they are refused; see web.go).
	Web WebReader
}

// Set is the state the file tools share: the confined root, per-path locks,
// the content cache and the files this set created. It is safe for
// concurrent use. Create one per project root and session with New.
type Set struct {
	root  string   // Config.Root, cleaned: how absolute arguments may spell it
	real  string   // root with its symlinks resolved: the directory dir opens
	dir   *os.Root // every file operation goes through it (see confine.go)
	blobs effect.Blobs
	now   func() time.Time
	// classify is Config.Classify; see classified.
	classify func(string) (string, bool)
	// markings is Config.Markings, or the built-in markings; see marked.
	markings func(string) (string, bool)
	skills   SkillReader // Config.Skills
	web      WebReader   // Config.Web

	locks pathLocks
	cache *fileCache

	mu      sync.Mutex
	created map[string]bool // slash paths this set created, for RiskOf

	// noSync skips fsync on writes; only tests that write thousands of
	// files (the fuzz target) set it.
	noSync bool
}

// New checks cfg and opens the root.
func New(cfg Config) (*Set, error) {
	if cfg.Root == "" {
		return nil, errors.New("files: Config.Root is required")
	}
	if !filepath.IsAbs(cfg.Root) {
		return nil, fmt.Errorf("files: Config.Root %q is not an absolute path", cfg.Root)
	}
	root := filepath.Clean(cfg.Root)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("files: root: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("files: root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("files: root %s is not a directory", root)
	}
	dir, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("files: root: %w", err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Set{
		root:     root,
		real:     real,
		dir:      dir,
		blobs:    cfg.Blobs,
		now:      now,
		classify: cfg.Classify,
		markings: cfg.Markings,
		skills:   cfg.Skills,
		web:      cfg.Web,
		cache:    newFileCache(defaultCacheBytes, maxCachedFile),
		created:  map[string]bool{},
	}, nil
}

// Close releases the root directory handle. The tools fail afterwards. A
// set that is never closed releases it when garbage collected.
func (s *Set) Close() error {
	if err := s.dir.Close(); err != nil {
		return fmt.Errorf("files: close root: %w", err)
	}
	return nil
}

// Root returns the project root as configured.
func (s *Set) Root() string { return s.root }

// Tools returns the six file tools, sharing s.
func (s *Set) Tools() []tools.Tool {
	return []tools.Tool{
		&ReadFile{s: s},
		&WriteFile{s: s},
		&EditFile{s: s},
		&ListFiles{s: s},
		&Glob{s: s},
		&Grep{s: s},
	}
}

// Register creates a Set from cfg and adds its tools to r.
func Register(r *tools.Registry, cfg Config) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	for _, t := range s.Tools() {
		if err := r.Register(t); err != nil {
			return fmt.Errorf("files: %w", err)
		}
	}
	return nil
}

// markCreated records that this set created rel: overwriting it later is an
// ordinary write, not a destructive one.
func (s *Set) markCreated(rel string) {
	s.mu.Lock()
	s.created[rel] = true
	s.mu.Unlock()
}

func (s *Set) wasCreated(rel string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created[rel]
}
