package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse"
)

// IngestOptions tunes one ingestion. Zero values are defaults.
type IngestOptions struct {
	// Progress, when set, is called after each file, from one goroutine at
	// a time.
	Progress func(Progress)
	// Workers parse, chunk and embed files in parallel; 0 means up to 4.
	Workers int
	// Limits bounds each file (parse.DefaultMaxBytes by default).
	Limits parse.Limits
}

// Progress reports an ingestion under way.
type Progress struct {
	Files, FilesDone int
	Chunks           int
	Bytes            int64 // bytes of the files done
	Elapsed          time.Duration
	Last             FileReport
}

// File statuses in FileReport.Status.
const (
	StatusAdded     = "added"
	StatusUpdated   = "updated"
	StatusUnchanged = "unchanged"
	StatusFailed    = "failed"
)

// FileReport is what became of one file.
type FileReport struct {
	Path     string   `json:"path"`
	Status   string   `json:"status"`
	Document string   `json:"document,omitempty"`
	Chunks   int      `json:"chunks"`
	Bytes    int64    `json:"bytes"`
	Error    string   `json:"error,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// IngestReport sums up an ingestion.
type IngestReport struct {
	Base      string        `json:"base"`
	Files     []FileReport  `json:"files"`
	Added     int           `json:"added"`
	Updated   int           `json:"updated"`
	Unchanged int           `json:"unchanged"`
	Failed    int           `json:"failed"`
	Chunks    int           `json:"chunks"`
	Bytes     int64         `json:"bytes"`
	Duration  time.Duration `json:"duration_ns"`
}

// Ingest adds the files and folders of paths to the base. A file whose
// content is unchanged (same SHA-256) is skipped; a changed one replaces
// its old version in one transaction. A file that cannot be read or parsed
// is reported with its reason and the others go on: the returned error is
// only for what stops everything (no such base, a cancelled context, the
// database).
func (s *Store) Ingest(ctx context.Context, name string, paths []string, opt IngestOptions) (IngestReport, error) {
	b, err := s.Base(ctx, name)
	if err != nil {
		return IngestReport{}, err
	}
	if err := s.checkEmbedder(b); err != nil {
		return IngestReport{}, err
	}
	files, err := collect(paths)
	if err != nil {
		return IngestReport{}, err
	}
	start := s.now()
	rep := IngestReport{Base: b.Name, Files: make([]FileReport, len(files))}
	err = s.ingestAll(ctx, b, files, opt, func(i int, fr FileReport) {
		rep.Files[i] = fr
		rep.add(fr)
		if opt.Progress != nil {
			opt.Progress(Progress{Files: len(files), FilesDone: rep.done(), Chunks: rep.Chunks,
				Bytes: rep.Bytes, Elapsed: s.now().Sub(start), Last: fr})
		}
	})
	rep.Duration = s.now().Sub(start)
	if err != nil {
		return rep, fmt.Errorf("ingest into %s: %w", b.Name, err)
	}
	return rep, nil
}

func (r *IngestReport) add(fr FileReport) {
	switch fr.Status {
	case StatusAdded:
		r.Added++
	case StatusUpdated:
		r.Updated++
	case StatusUnchanged:
		r.Unchanged++
	case StatusFailed:
		r.Failed++
	}
	r.Chunks += fr.Chunks
	r.Bytes += fr.Bytes
}

func (r *IngestReport) done() int { return r.Added + r.Updated + r.Unchanged + r.Failed }

// checkEmbedder refuses to add to a base with vectors when the configured
// embedding model is not the one its vectors came from: mixing models
// would make the cosine scan meaningless.
func (s *Store) checkEmbedder(b Base) error {
	if b.EmbedModel == "" {
		return nil
	}
	if s.embedder == nil {
		return fmt.Errorf("knowledge base %s has vectors from embedding model %s, and no embedding model is configured: set MOTEUR_EMBED_MODEL=%s", b.Name, b.EmbedModel, b.EmbedModel)
	}
	if m := s.embedder.Model(); m != b.EmbedModel {
		return fmt.Errorf("knowledge base %s has vectors from embedding model %s, not %s: set MOTEUR_EMBED_MODEL=%s or create another base", b.Name, b.EmbedModel, m, b.EmbedModel)
	}
	return nil
}

// ingestAll runs the files through workers and the single writer; done is
// called once per file, in completion order, from one goroutine.
func (s *Store) ingestAll(ctx context.Context, b Base, files []string, opt IngestOptions, done func(int, FileReport)) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = min(4, runtime.GOMAXPROCS(0))
	}
	type result struct {
		i  int
		fr FileReport
	}
	jobs := make(chan int)
	results := make(chan result)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results <- result{i, s.ingestFile(ctx, b, files[i], opt.Limits)}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range files {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	for r := range results {
		done(r.i, r.fr)
	}
	return ctx.Err()
}

// ingestFile reads, parses, chunks, embeds and stores one file.
func (s *Store) ingestFile(ctx context.Context, b Base, path string, lim parse.Limits) FileReport {
	fr := FileReport{Path: path}
	fail := func(err error) FileReport {
		fr.Status, fr.Error, fr.Chunks = StatusFailed, err.Error(), 0
		return fr
	}
	data, err := readLimited(path, lim)
	if err != nil {
		return fail(err)
	}
	fr.Bytes = int64(len(data))
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	prev, err := s.storedHash(ctx, b, path)
	if err != nil {
		return fail(err)
	}
	if prev == hash {
		fr.Status = StatusUnchanged
		return fr
	}
	doc, err := parse.Bytes(filepath.Base(path), data)
	if err != nil {
		return fail(err)
	}
	fr.Warnings = doc.Warnings
	if err := s.index(ctx, b, storedDoc{path: path, hash: hash, size: fr.Bytes, doc: doc}, &fr); err != nil {
		return fail(err)
	}
	return fr
}

// index chunks, embeds and stores a parsed document, filling fr.
func (s *Store) index(ctx context.Context, b Base, d storedDoc, fr *FileReport) error {
	chunks := chunk.Split(d.doc, b.Chunking)
	if len(chunks) == 0 {
		return fmt.Errorf("%s: no text to index", d.path)
	}
	var vecs [][]float32
	var err error
	if b.EmbedModel != "" {
		if vecs, err = s.embedChunks(ctx, d.doc.Title, chunks); err != nil {
			return fmt.Errorf("%s: %w", d.path, err)
		}
	}
	id, replaced, err := s.replaceDocument(ctx, b, d, chunks, vecs)
	if err != nil {
		return fmt.Errorf("%s: %w", d.path, err)
	}
	fr.Status, fr.Document, fr.Chunks = StatusAdded, id, len(chunks)
	if replaced {
		fr.Status = StatusUpdated
	}
	return nil
}

// readLimited reads a file, refusing one over the limit before reading it
// (and one that grows past it while read).
func readLimited(path string, lim parse.Limits) ([]byte, error) {
	limit := lim.MaxBytes
	if limit <= 0 {
		limit = parse.DefaultMaxBytes
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d MiB, the limit is %d MiB", path, parse.ErrTooLarge, st.Size()>>20, limit>>20)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: grew past %d MiB while read", path, parse.ErrTooLarge, limit>>20)
	}
	return data, nil
}

// collect expands folders into their files (hidden entries skipped),
// sorted, without duplicates. A path that does not exist stops the
// ingestion before it starts: it is a typing error, not a bad file.
func collect(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("cannot ingest %s: %w", p, err)
		}
		if !st.IsDir() {
			if !seen[abs] {
				seen[abs] = true
				out = append(out, abs)
			}
			continue
		}
		err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped; the rest goes on
			}
			if path != abs && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && !seen[path] {
				seen[path] = true
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot ingest %s: %w", p, err)
		}
	}
	sort.Strings(out)
	return out, nil
}
