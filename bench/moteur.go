package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/moteur/moteur/bench/corpus"
	"github.com/moteur/moteur/kb"
)

// The bases of a benchmark database: one of the default analyzer, which
// Moteur searches on its own index, and one raw, whose FTS5 table the
// SQLite engines query.
const (
	BaseDocs = "docs"
	BaseRaw  = "raw"
)

// IngestMoteur creates a base of analyzer ("" is the default) in the
// database at path and ingests the corpus's documents into it with
// kb.Store.Ingest.
func IngestMoteur(ctx context.Context, path, name, analyzer string, c *corpus.Corpus) (kb.IngestReport, error) {
	s, err := kb.Open(ctx, kb.Config{Path: path})
	if err != nil {
		return kb.IngestReport{}, err
	}
	if _, err := s.Create(ctx, name, kb.CreateOptions{Analyzer: analyzer}); err != nil {
		return kb.IngestReport{}, errors.Join(err, s.Close())
	}
	rep, err := s.Ingest(ctx, name, []string{c.Dir}, kb.IngestOptions{})
	if err == nil && rep.Failed > 0 {
		err = fmt.Errorf("ingest %s: %d files failed, first: %s", name, rep.Failed, firstFailure(rep))
	}
	return rep, errors.Join(err, s.Close())
}

func firstFailure(rep kb.IngestReport) string {
	for _, f := range rep.Files {
		if f.Status == kb.StatusFailed {
			return f.Path + ": " + f.Error
		}
	}
	return ""
}

// MoteurDB returns the corpus's benchmark database (bases BaseDocs and
// BaseRaw), built once and cached beside the corpus while Moteur's kb
// source is unchanged.
func MoteurDB(ctx context.Context, c *corpus.Corpus) (string, error) {
	build := func(tmp string) error {
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return err
		}
		db := filepath.Join(tmp, "moteur.db")
		if _, err := IngestMoteur(ctx, db, BaseDocs, "", c); err != nil {
			return err
		}
		_, err := IngestMoteur(ctx, db, BaseRaw, kb.AnalyzerRaw, c)
		return err
	}
	h := kbSourceHash()
	if h == "" {
		dir, err := os.MkdirTemp("", "moteur-bench-db-")
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, "moteur.db"), build(dir)
	}
	dir, err := cached(filepath.Join(c.Cache, "moteur-"+h), build)
	if err != nil {
		return "", fmt.Errorf("moteur database: %w", err)
	}
	return filepath.Join(dir, "moteur.db"), nil
}

// MoteurSearch searches one base with kb.Store.Search, as search_knowledge
// does, with the default retrieval settings.
type MoteurSearch struct {
	s    *kb.Store
	base string
	mode kb.Mode
}

// OpenMoteurSearch opens the database at path for searches of base in
// mode.
func OpenMoteurSearch(ctx context.Context, path, base string, mode kb.Mode) (*MoteurSearch, error) {
	s, err := kb.Open(ctx, kb.Config{Path: path})
	if err != nil {
		return nil, err
	}
	return &MoteurSearch{s: s, base: base, mode: mode}, nil
}

// Search returns the number of hits of query.
func (m *MoteurSearch) Search(ctx context.Context, query string) (int, error) {
	res, err := m.s.Search(ctx, kb.Query{Text: query, Mode: m.mode, Bases: []string{m.base}})
	if err != nil {
		return 0, err
	}
	return len(res.Hits), nil
}

// Close closes the store.
func (m *MoteurSearch) Close() error { return m.s.Close() }
