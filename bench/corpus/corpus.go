// Package corpus owns the benchmark corpus: real documentation found on
// this machine (Go source comments under GOROOT, the texts of
// /usr/share/doc, man pages), written as Markdown documents, cut into
// passages by Moteur's own chunker at its default size, and a fixed set of
// queries drawn from the same documents. Everything is deterministic:
// sorted file lists, one fixed shuffle seed, so that every engine, every
// run and every process sees the same passages and the same queries.
//
// A corpus is built once and cached in a directory keyed by a hash of what
// it was built from; Load is safe for concurrent use by several processes
// (a build is written aside and renamed into place).
package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse"
)

// version changes whenever the way documents, passages or queries are
// made changes, so that an old cache is not reused.
const version = "corpus-v1"

// seed orders the documents (and picks the queries) the same way in every
// run.
const seed = 18

// MaxQueries is the size of the query set.
const MaxQueries = 300

// Passage is one indexable piece, as Moteur stores it: its document's
// title, its heading path joined as Moteur joins it, and its text.
type Passage struct {
	Doc      string `json:"doc"` // the document file, relative to Dir
	Title    string `json:"title"`
	Headings string `json:"headings"`
	Text     string `json:"text"`
}

// Corpus is a built corpus.
type Corpus struct {
	// Dir holds the documents as Markdown files (Files, relative, sorted),
	// which Moteur's ingestion reads.
	Dir   string   `json:"-"`
	Files []string `json:"files"`
	// Bytes is the documents' total size: the figure ingestion rates are
	// computed on, for every engine.
	Bytes    int64     `json:"bytes"`
	Passages []Passage `json:"passages"`
	Queries  []string  `json:"queries"`
	// Cache is the directory this corpus lives in; indexes built from it
	// may be cached beside it.
	Cache string `json:"-"`
}

// Sources are where the documents come from; the zero value means this
// machine's defaults.
type Sources struct {
	GoRoot string // $(go env GOROOT); "" → runtime.GOROOT()
	Doc    string // "" → /usr/share/doc
	Man    string // "" → /usr/share/man
}

func (s Sources) withDefaults() Sources {
	if s.GoRoot == "" {
		s.GoRoot = runtime.GOROOT()
	}
	if s.Doc == "" {
		s.Doc = "/usr/share/doc"
	}
	if s.Man == "" {
		s.Man = "/usr/share/man"
	}
	return s
}

// DefaultRoot is where corpora and the indexes built from them are cached
// when Load is given no root.
func DefaultRoot() string { return filepath.Join(os.TempDir(), "moteur-bench") }

// Load returns the corpus of exactly n passages, building it under
// cacheRoot (DefaultRoot() when "") if it is not there yet.
func Load(cacheRoot string, n int, src Sources) (*Corpus, error) {
	if n <= 0 {
		return nil, fmt.Errorf("corpus: %d passages asked: want at least 1", n)
	}
	src = src.withDefaults()
	if cacheRoot == "" {
		cacheRoot = DefaultRoot()
	}
	files, err := listSources(src)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%d\n%d\n%s\n", version, n, seed, runtime.Version())
	for _, f := range files {
		fmt.Fprintf(h, "%s\t%d\n", f.path, f.size)
	}
	dir := filepath.Join(cacheRoot, fmt.Sprintf("corpus-%d-%s", n, hex.EncodeToString(h.Sum(nil))[:12]))
	if c, err := read(dir); err == nil {
		return c, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(cacheRoot, 0o755); err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheRoot, "build-")
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; removes a failed build
	if err := build(tmp, n, files); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process built it first: use theirs.
		if c, rerr := read(dir); rerr == nil {
			return c, nil
		}
		return nil, fmt.Errorf("corpus: %w", err)
	}
	return read(dir)
}

func read(dir string) (*Corpus, error) {
	data, err := os.ReadFile(filepath.Join(dir, "corpus.json"))
	if err != nil {
		return nil, err
	}
	var c Corpus
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", dir, err)
	}
	c.Dir, c.Cache = filepath.Join(dir, "docs"), dir
	return &c, nil
}

// build renders the sources in a fixed shuffled order, keeps each
// document whose passages still fit in n, and stops at exactly n.
func build(dir string, n int, files []source) error {
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	c := Corpus{}
	var cands [kinds][]string
	seenName := map[string]bool{}
	for _, f := range files {
		if len(c.Passages) == n {
			break
		}
		d, err := f.render()
		if err != nil || d == nil {
			continue // unreadable or without text: not documentation
		}
		doc, err := parse.Bytes(d.name, d.body)
		if err != nil {
			continue
		}
		chunks := chunk.Split(doc, chunk.Config{})
		if len(chunks) == 0 || len(c.Passages)+len(chunks) > n {
			continue
		}
		name := d.name
		for i := 2; seenName[f.kind.String()+"/"+name]; i++ {
			name = fmt.Sprintf("%s-%d.md", strings.TrimSuffix(d.name, ".md"), i)
		}
		seenName[f.kind.String()+"/"+name] = true
		rel := filepath.Join(f.kind.String(), name)
		if err := os.MkdirAll(filepath.Join(dir, "docs", f.kind.String()), 0o755); err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "docs", rel), d.body, 0o644); err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		c.Files = append(c.Files, rel)
		c.Bytes += int64(len(d.body))
		for _, ch := range chunks {
			c.Passages = append(c.Passages, Passage{Doc: rel, Title: doc.Title,
				Headings: strings.Join(ch.Headings, " > "), Text: ch.Text})
		}
		cands[f.kind] = append(cands[f.kind], d.queries...)
	}
	if len(c.Passages) < n {
		return fmt.Errorf("corpus: only %d passages of documentation on this machine, %d asked", len(c.Passages), n)
	}
	c.Queries = pickQueries(r, cands)
	if len(c.Queries) == 0 {
		return errors.New("corpus: no query could be made from the documents")
	}
	slices.Sort(c.Files)
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "corpus.json"), data, 0o644); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	return nil
}

// pickQueries takes the same share of queries from each kind of document,
// deduplicated, in a seeded order, up to MaxQueries.
func pickQueries(r *rand.Rand, cands [kinds][]string) []string {
	seen := map[string]bool{}
	var per [kinds][]string
	for k := range cands {
		for _, q := range cands[k] {
			key := strings.ToLower(q)
			if !seen[key] {
				seen[key] = true
				per[k] = append(per[k], q)
			}
		}
		r.Shuffle(len(per[k]), func(i, j int) { per[k][i], per[k][j] = per[k][j], per[k][i] })
	}
	var out []string
	for i := 0; len(out) < MaxQueries; i++ {
		added := false
		for k := range per {
			if i < len(per[k]) && len(out) < MaxQueries {
				out = append(out, per[k][i])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}
