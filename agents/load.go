package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/moteur/moteur/smallfile"
)

// MaxFileSize bounds an agent file; a bigger one is reported and skipped.
const MaxFileSize = 256 << 10

// Load builds the catalog of cfg: the agent files of the project and the
// user (see the package doc for the order), then the built-ins. Every
// problem is returned, with its file and reason; none stops the load, so
// the catalog is never nil.
func Load(cfg Config) (*Catalog, []error) {
	p := newParser(cfg)
	var list []Agent
	var errs []error
	for _, dir := range dirs(cfg) {
		as, es := p.readDir(dir)
		list = append(list, as...)
		errs = append(errs, es...)
	}
	c, es := build(cfg, list)
	return c, append(errs, es...)
}

// dirs are the directories read, first wins.
func dirs(cfg Config) []string {
	var out []string
	if cfg.ProjectDir != "" {
		out = append(out, filepath.Join(cfg.ProjectDir, ".moteur", "agents"), filepath.Join(cfg.ProjectDir, ".claude", "agents"))
	}
	if cfg.UserDir != "" {
		out = append(out, cfg.UserDir)
	}
	return out
}

// readDir reads dir's *.md files by name; a missing directory is no error.
func (p *parser) readDir(dir string) ([]Agent, []error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var errs []error
	if err != nil {
		errs = append(errs, &FileError{Path: dir, Err: fmt.Errorf("%w: %w", ErrUnreadable, err), Skipped: true})
		// ReadDir returns what it read before the error: go on with it.
	}
	var out []Agent
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := readFile(path)
		if err != nil {
			errs = append(errs, &FileError{Path: path, Err: err, Skipped: true})
			continue
		}
		a, es, ok := p.parse(path, data)
		errs = append(errs, es...)
		if ok {
			out = append(out, a)
		}
	}
	return out, errs
}

// readFile reads a regular file of at most MaxFileSize bytes (a FIFO or a
// device named *.md must not block or flood the load).
func readFile(path string) ([]byte, error) {
	data, err := smallfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	return data, nil
}

// build makes the catalog of files (in order), then the built-ins; the
// first agent of a name wins.
func build(cfg Config, files []Agent) (*Catalog, []error) {
	c := &Catalog{byName: map[string]int{}, maxDepth: cfg.maxDepth()}
	var errs []error
	from := map[string]string{}
	for _, a := range files {
		if first, dup := from[a.Name]; dup {
			errs = append(errs, &FileError{Path: a.Source, Key: "name", Err: ErrDuplicate, Skipped: true,
				Detail: fmt.Sprintf("agent %q is already defined by %s, which wins", a.Name, first)})
			continue
		}
		from[a.Name] = a.Source
		c.agents = append(c.agents, a)
	}
	for _, b := range builtins(cfg.Lang) {
		if src, over := from[b.Name]; over {
			errs = append(errs, &FileError{Path: src, Key: "name", Err: ErrOverride,
				Detail: fmt.Sprintf("agent %q replaces the built-in agent of that name", b.Name)})
			continue
		}
		c.agents = append(c.agents, b)
	}
	sort.SliceStable(c.agents, func(i, j int) bool { return c.agents[i].Name < c.agents[j].Name })
	for i, a := range c.agents {
		c.byName[a.Name] = i
	}
	return c, errs
}
