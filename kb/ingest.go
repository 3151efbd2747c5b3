package kb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

	"github.com/moteur/moteur/event"
	"github.com/moteur/moteur/kb/analyze"
	"github.com/moteur/moteur/kb/chunk"
	"github.com/moteur/moteur/kb/parse"
	"github.com/moteur/moteur/provider"
)

// IngestOptions tunes one ingestion. Zero values are defaults.
type IngestOptions struct {
	// Progress, when set, is called after each file and after each page of
	// a paged document (PDF) being parsed, from one goroutine at a time.
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
	// Parsing is the paged document being parsed, PagesDone of its Pages
	// done; empty when the call reports a file done.
	Parsing          string
	PagesDone, Pages int
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
	var mu sync.Mutex // the workers report pages, this goroutine files
	var pages func(path string, done, total int)
	if opt.Progress != nil {
		pages = func(path string, done, total int) {
			mu.Lock()
			defer mu.Unlock()
			opt.Progress(Progress{Files: len(files), FilesDone: rep.done(), Chunks: rep.Chunks,
				Bytes: rep.Bytes, Elapsed: s.now().Sub(start), Parsing: path, PagesDone: done, Pages: total})
		}
	}
	err = s.ingestAll(ctx, b, files, opt, pages, func(i int, fr FileReport) {
		mu.Lock()
		defer mu.Unlock()
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

// Group commit: documents are written in one transaction (each still
// whole) up to a batch, so that a folder of small files does not pay one
// fsync, and one rewrite of the same B-tree pages, per file. The writer
// waits up to maxBatchWait for a batch to fill while the workers are still
// preparing: it would idle otherwise, and a batch of two or three
// documents, which is what is ready at any one time, costs nearly as much
// to commit as a full one.
const (
	maxBatchDocs   = 32
	maxBatchChunks = 4000
	maxBatchWait   = 50 * time.Millisecond
)

// ingestAll prepares the files in workers (read, parse, chunk, analyse,
// embed) and writes them from this goroutine in group commits; done is
// called once per file, in completion order, from this goroutine.
func (s *Store) ingestAll(ctx context.Context, b Base, files []string, opt IngestOptions, pages func(string, int, int), done func(int, FileReport)) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	workers := opt.Workers
	if workers <= 0 {
		workers = min(4, runtime.GOMAXPROCS(0))
	}
	jobs := make(chan int)
	// Room for a batch: the workers go on preparing while the writer
	// commits the one before.
	ready := make(chan *prepared, maxBatchDocs)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				p := s.prepareFile(ctx, b, files[i], opt.Limits, pages)
				p.i = i
				if p.down != nil {
					// At once, not after the writer's batch: every file
					// prepared meanwhile would wait for the same retries.
					stop(p.down)
				}
				ready <- p
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
	go func() { wg.Wait(); close(ready) }()
	wait := time.NewTimer(maxBatchWait)
	defer wait.Stop()
	for p := range ready {
		batch := gather(ctx, p, ready, wait, maxBatchWait)
		s.commit(ctx, b, batch)
		for _, p := range batch {
			if p.down != nil {
				stop(p.down)
			}
			done(p.i, p.fr)
		}
	}
	return context.Cause(ctx)
}

// gather takes first and the documents that follow it, up to a batch: it
// waits for them until wait fires (reset here to d), the workers are done,
// ctx is cancelled, or a document stops the ingestion.
func gather(ctx context.Context, first *prepared, ready <-chan *prepared, wait *time.Timer, d time.Duration) []*prepared {
	batch := []*prepared{first}
	chunks := len(first.chunks)
	wait.Reset(d)
	for len(batch) < maxBatchDocs && chunks < maxBatchChunks && first.down == nil {
		select {
		case p, ok := <-ready:
			if !ok {
				return batch
			}
			batch = append(batch, p)
			chunks += len(p.chunks)
			if p.down != nil {
				return batch
			}
		case <-wait.C:
			return batch
		case <-ctx.Done():
			return batch
		}
	}
	return batch
}

// prepareFile reads, parses, chunks and embeds one file; the result needs
// writing unless its report already says unchanged or failed.
func (s *Store) prepareFile(ctx context.Context, b Base, path string, lim parse.Limits, pages func(string, int, int)) *prepared {
	p := &prepared{fr: FileReport{Path: path}}
	data, err := readLimited(path, lim)
	if err != nil {
		return p.fail(err)
	}
	p.fr.Bytes = int64(len(data))
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	rule := ""
	if s.classify != nil {
		if r, ok := s.classify(path); ok {
			rule = r
		}
	}
	prevHash, prevRule, err := s.stored(ctx, b, path)
	if err != nil {
		return p.fail(err)
	}
	// A classification rule added or removed since counts as a change.
	if prevHash == hash && prevRule == rule {
		p.fr.Status = StatusUnchanged
		return p
	}
	var progress parse.PageProgress
	if pages != nil {
		progress = func(done, total int) { pages(path, done, total) }
	}
	doc, err := parse.BytesWithProgress(filepath.Base(path), data, progress)
	if err != nil {
		return p.fail(err)
	}
	p.fr.Warnings = doc.Warnings
	d := storedDoc{path: path, hash: hash, size: p.fr.Bytes, doc: doc, classified: rule}
	return s.prepareDoc(ctx, b, p, d)
}

// prepareDoc chunks and embeds a parsed document, and tells its language
// for a snowball base.
func (s *Store) prepareDoc(ctx context.Context, b Base, p *prepared, d storedDoc) *prepared {
	p.chunks = chunk.Split(d.doc, b.Chunking)
	if len(p.chunks) == 0 {
		p.doc = d
		return p.fail(fmt.Errorf("%s: no text to index", d.path))
	}
	if b.Analyzer == AnalyzerSnowball {
		d.language = detectLanguage(d.doc.Title, p.chunks)
	}
	p.doc = d
	if kinds := maskChunks(p.chunks); len(kinds) > 0 {
		p.fr.Warnings = append(p.fr.Warnings, "secrets masked before storing: "+strings.Join(kinds, ", "))
	}
	// Analysed here, on the worker, not in the writer's transaction.
	p.title = indexText(b, d.language, d.doc.Title)
	p.rows = analyseChunks(b, d.language, p.title, p.chunks)
	if b.EmbedModel != "" {
		ectx := ctx
		if d.classified != "" {
			ectx = withClassified(ctx, d.classified)
		}
		var err error
		if p.vecs, err = s.embedChunks(ectx, d.doc.Title, p.chunks); err != nil {
			if serverDown(err) {
				// Every other file would wait for the same retries: stop.
				p.down = fmt.Errorf("%w: %w", ErrEmbedderDown, err)
			}
			return p.fail(fmt.Errorf("%s: %w", d.path, err))
		}
	}
	p.write = true
	return p
}

// detectLanguage tells a document's language from its title and the
// first KiB of its chunks' text, once per document and on the worker that
// prepares it: detection counts every trigram it reads (about 0.8 ms a
// KiB), and the beginning of a document tells its language as well as the
// whole. The prefix is cut by analyze.Detect, at a rune boundary.
func detectLanguage(title string, chunks []chunk.Chunk) analyze.Language {
	var sb strings.Builder
	sb.WriteString(title)
	for _, c := range chunks {
		if sb.Len() >= analyze.DetectPrefix {
			break
		}
		sb.WriteByte('\n')
		sb.WriteString(c.Text[:min(len(c.Text), analyze.DetectPrefix)])
	}
	return analyze.Detect(sb.String())
}

// prepared is a document ready to be written (write), or the report of
// one that needs no writing.
type prepared struct {
	i      int
	fr     FileReport
	down   error // the embedding server is unreachable: the ingestion stops
	write  bool
	doc    storedDoc
	chunks []chunk.Chunk
	vecs   [][]float32
	// title and rows are the analysed title and chunks (analyseChunks).
	title string
	rows  []chunkRow
}

func (p *prepared) fail(err error) *prepared {
	p.fr.Status, p.fr.Error, p.fr.Chunks, p.write = StatusFailed, err.Error(), 0, false
	return p
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

// ErrEmbedderDown stops an ingestion whose embedding server still fails
// after its retries: the files left are not tried.
var ErrEmbedderDown = errors.New("the embedding server is not answering")

// serverDown reports an embedding failure that retries did not cure and
// that no other file would escape: the server unreachable or failing
// (a transient error, after the client's own retries). A refusal of the
// outbound policy or a bad answer concerns one file.
func serverDown(err error) bool {
	var pe *provider.Error
	return errors.As(err, &pe) && pe.Kind == provider.Transient
}

// maskChunks masks the secrets of the chunks' text (an API key in a
// configuration file, a token in a log) before anything is stored or
// embedded, as every event is: a knowledge base is a store, and its
// passages go to models. It returns the kinds of secret found.
func maskChunks(chunks []chunk.Chunk) []string {
	seen := map[string]bool{}
	var kinds []string
	for i := range chunks {
		text, found := event.MaskString(chunks[i].Text)
		chunks[i].Text = text
		for _, k := range found {
			if !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	sort.Strings(kinds)
	return kinds
}
