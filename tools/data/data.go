// Package data holds the data tools of seed 000: data_schema and
// data_analysis, on the CSV, TSV and XLSX documents of the knowledge bases.
//
// A document is loaded once per session into its own in-memory SQLite
// database (pure Go, modernc.org/sqlite) as the table dataset: column
// names normalised, types inferred, the sheets of a workbook merged with a
// __sheet_name column. The model's SQL then runs on a connection the
// database itself keeps read-only (an authorizer that allows reading and
// nothing else, and PRAGMA query_only), one statement at a time, under a
// deadline and a cap on the rows it sees.
//
// The databases live until Close, which the session calls when its tools
// are cleaned up. A Set is safe for concurrent use.
package data

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/tools"
)

// Tool names.
const (
	SchemaName   = "data_schema"
	AnalysisName = "data_analysis"
)

// TableName is the one table data_analysis queries, whatever the document.
const TableName = "dataset"

// Defaults of Config.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxRows     = 200
	DefaultMaxBytes    = 128 << 20
	DefaultMaxDatasets = 4
)

// Documents gives the tools the documents a knowledge_id names. The
// knowledge-base side implements it: it resolves the session's aliases,
// checks the scope and reads the original bytes.
type Documents interface {
	// Resolve returns the document the model's knowledge_id (dN) names in
	// this session (ctx carries the session's cite.Table), or an error
	// the model can act on (unknown id, out of scope, not a table).
	Resolve(ctx context.Context, knowledgeID string) (Document, error)
	// Content returns the document's original bytes.
	Content(ctx context.Context, d Document) ([]byte, error)
}

// Document is one tabular document.
type Document struct {
	// Key identifies this version of the document (its stored id and
	// SHA-256): a loaded database is reused while the key stays the same.
	Key string
	// Name is the file name; its extension picks the format (.csv, .tsv,
	// .tab, .txt, .xlsx, .xlsm).
	Name string
	// Ref is the document's reference, alias included, listed in the
	// results' References.
	Ref cite.Ref
	// Classified is the classification rule the document matched, passed
	// on to the results.
	Classified string
}

// Config configures the tools. Documents is required.
type Config struct {
	Documents Documents
	// Timeout bounds one query (0: DefaultTimeout); loading a document
	// has the same bound again.
	Timeout time.Duration
	// MaxRows is the number of result rows the model sees (0:
	// DefaultMaxRows); the rest are counted, not shown.
	MaxRows int
	// Budget is the tool output budget in runes (0: tools.DefaultMaxOutput);
	// a result uses at most 4/5 of it.
	Budget int
	// MaxBytes refuses documents larger than this (0: DefaultMaxBytes).
	MaxBytes int64
	// MaxDatasets is how many loaded documents a session keeps (0:
	// DefaultMaxDatasets); the least recently used is closed first.
	MaxDatasets int
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("the data tools of this session are closed")

// Set is the data tools of one session and the databases they loaded.
type Set struct {
	cfg   Config
	cache *cache
}

// New returns the data tools for one session.
func New(cfg Config) (*Set, error) {
	if cfg.Documents == nil {
		return nil, fmt.Errorf("data tools: a document source is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.Budget <= 0 {
		cfg.Budget = tools.DefaultMaxOutput
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxDatasets <= 0 {
		cfg.MaxDatasets = DefaultMaxDatasets
	}
	return &Set{cfg: cfg, cache: newCache(cfg.MaxDatasets)}, nil
}

// Tools returns data_schema and data_analysis.
func (s *Set) Tools() []tools.Tool {
	return []tools.Tool{&schemaTool{s}, &analysisTool{s}}
}

// Register adds the two tools to r.
func (s *Set) Register(r *tools.Registry) error {
	for _, t := range s.Tools() {
		if err := r.Register(t); err != nil {
			return fmt.Errorf("data tools: %w", err)
		}
	}
	return nil
}

// Close drops every loaded database; later calls fail with ErrClosed.
// It is the session's cleanup of these tools.
func (s *Set) Close() error { return s.cache.close() }

// with runs use on the loaded database of the document knowledgeID
// names, loading it on first use.
func (s *Set) with(ctx context.Context, knowledgeID string, use func(Document, *dataset) error) (Document, error) {
	doc, err := s.cfg.Documents.Resolve(ctx, knowledgeID)
	if err != nil {
		return Document{}, err
	}
	load := func(ctx context.Context) (*dataset, error) { return s.load(ctx, doc) }
	return doc, s.cache.with(ctx, doc.Key, load, func(ds *dataset) error { return use(doc, ds) })
}

// load reads the document and builds its database.
func (s *Set) load(ctx context.Context, doc Document) (*dataset, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	data, err := s.cfg.Documents.Content(ctx, doc)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", doc.Name, err)
	}
	if int64(len(data)) > s.cfg.MaxBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d the data tools load", doc.Name, len(data), s.cfg.MaxBytes)
	}
	f, err := parseDocument(doc.Name, data, s.cfg.MaxBytes)
	if err != nil {
		return nil, err
	}
	return openDataset(ctx, f)
}

// refs lists the document's reference when it has one.
func refs(d Document) []cite.Ref {
	if d.Ref.Alias == "" {
		return nil
	}
	return []cite.Ref{d.Ref}
}

// errResult is a failed call the model can correct.
func errResult(err error) (tools.Result, error) {
	return tools.Result{Content: err.Error(), IsError: true}, nil
}
