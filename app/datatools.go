package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/i18n"
	"github.com/moteur/moteur/kb"
	"github.com/moteur/moteur/kb/parse"
	"github.com/moteur/moteur/tools/data"
)

// The data tools (data_schema, data_analysis) read the CSV, TSV and Excel
// documents of the session's knowledge bases. The bases keep each
// document's path and SHA-256, not its bytes: the tools read the file where
// it was ingested from, and refuse it once it is gone or changed, rather
// than answer from other figures than the base's. A session offers them
// when a base in scope holds such a document (knowledgeTools).

// dataToolNames are the tools the tables of the knowledge bases give an
// agent.
var dataToolNames = []string{data.SchemaName, data.AnalysisName}

// tabularFormats are the formats kb records for the documents the data
// tools read: "csv" for .csv and .tsv, "xlsx" for .xlsx and .xlsm (and
// a workbook recognised by its content).
var tabularFormats = map[string]bool{"csv": true, "xlsx": true}

// tabularFormatList is tabularFormats as a list, for the database's filter.
var tabularFormatList = []string{"csv", "xlsx"}

// maxListedTables is how many tables the prompt section names.
const maxListedTables = 50

// maxCandidates is how many documents an error of Resolve names.
const maxCandidates = 20

// docLister is what the data tools read of the knowledge bases (*kb.Store).
type docLister interface {
	Document(ctx context.Context, id string) (kb.DocInfo, error)
	DocumentsOfFormat(ctx context.Context, base string, formats ...string) ([]kb.DocInfo, error)
}

// kbTables is data.Documents over the tabular documents of the session's
// bases. It is safe for concurrent use (the tools of one round run in
// parallel).
type kbTables struct {
	store docLister
	// bases are the bases in scope, by name or id.
	bases []string
	// own is the alias table of calls made outside a session.
	own *cite.Table

	mu sync.Mutex
	// resolved are the documents Resolve gave, by Document.Key, for
	// Content: the path to read and the base to name.
	resolved map[string]kb.DocInfo
}

func newKBTables(store docLister, bases []string) *kbTables {
	return &kbTables{store: store, bases: bases, own: cite.NewTable(), resolved: map[string]kb.DocInfo{}}
}

// aliasPattern is the shape of an alias the model may give.
var aliasPattern = regexp.MustCompile(`^[bcdw][0-9]+$`)

// Resolve finds the table the model names: a dN alias of the session
// (a chunk's cN stands for its document), else a tabular document's path,
// file name or title, unique among those in scope.
func (k *kbTables) Resolve(ctx context.Context, given string) (data.Document, error) {
	given = strings.TrimSpace(given)
	if given == "" {
		return data.Document{}, errors.New("knowledge_id is empty: give the dN id of a CSV, TSV or Excel document, or its name as the system prompt lists it")
	}
	t := k.table(ctx)
	var info kb.DocInfo
	if r, ok := t.Resolve(given); ok {
		var err error
		if info, err = k.byRef(ctx, given, r); err != nil {
			return data.Document{}, err
		}
	} else if aliasPattern.MatchString(given) {
		return data.Document{}, k.unknown(ctx, fmt.Sprintf("unknown id %s in this session", given))
	} else {
		var err error
		if info, err = k.byName(ctx, given); err != nil {
			return data.Document{}, err
		}
	}
	doc := data.Document{
		Key:        info.ID + ":" + info.SHA256,
		Name:       tableFileName(info),
		Ref:        tableRef(t, info),
		Classified: info.Classified,
	}
	k.mu.Lock()
	k.resolved[doc.Key] = info
	k.mu.Unlock()
	return doc, nil
}

func (k *kbTables) table(ctx context.Context) *cite.Table {
	if t, ok := cite.TableFrom(ctx); ok {
		return t
	}
	return k.own
}

// byRef is the document an alias of the session stands for, checked.
func (k *kbTables) byRef(ctx context.Context, given string, r cite.Ref) (kb.DocInfo, error) {
	id := r.ID
	switch r.Kind {
	case cite.Document:
	case cite.Chunk:
		id = r.Document
	case cite.Base:
		return kb.DocInfo{}, k.unknown(ctx, fmt.Sprintf("%s is a knowledge base, not a document", given))
	default:
		return kb.DocInfo{}, k.unknown(ctx, fmt.Sprintf("%s is not a document of the knowledge bases", given))
	}
	info, err := k.store.Document(ctx, id)
	if err != nil {
		return kb.DocInfo{}, k.unknown(ctx, fmt.Sprintf("%s (%s) is no longer in its knowledge base", given, r.Where()))
	}
	if !k.inScope(info) {
		return kb.DocInfo{}, fmt.Errorf("%s (%s) is in the knowledge base %s, which this session does not use: the data tools read the tables of %s only",
			given, filepath.Base(info.Path), info.BaseName, k.names())
	}
	if !tabularFormats[info.Format] {
		return kb.DocInfo{}, fmt.Errorf("%s (%s) is a %s document, not a table: data_schema and data_analysis read CSV, TSV and Excel documents only",
			given, filepath.Base(info.Path), info.Format)
	}
	return info, nil
}

// byName is the one tabular document in scope whose path, file name or
// title is given; an exact path wins over names that others share.
func (k *kbTables) byName(ctx context.Context, given string) (kb.DocInfo, error) {
	all, err := tabularDocuments(ctx, k.store, k.bases)
	if err != nil {
		return kb.DocInfo{}, err
	}
	var byPath, byName []kb.DocInfo
	for _, d := range all {
		switch {
		case d.Path == given || filepath.Clean(given) == d.Path:
			byPath = append(byPath, d)
		case strings.EqualFold(filepath.Base(d.Path), given), strings.EqualFold(tableFileName(d), given), strings.EqualFold(d.Title, given):
			byName = append(byName, d)
		}
	}
	switch {
	case len(byPath) == 1:
		return byPath[0], nil
	case len(byPath) == 0 && len(byName) == 1:
		return byName[0], nil
	case len(byPath)+len(byName) > 1:
		return kb.DocInfo{}, fmt.Errorf("%q names %d tables: %s; give the path of one of them (or its dN id)",
			given, len(byPath)+len(byName), candidates(append(byPath, byName...)))
	}
	return kb.DocInfo{}, unknownTable(fmt.Sprintf("no CSV, TSV or Excel document named %q in the knowledge bases of this session (%s)", given, k.names()), all)
}

// unknown is an error saying what the model gave wrong, and the tables it
// could give instead.
func (k *kbTables) unknown(ctx context.Context, what string) error {
	all, err := tabularDocuments(ctx, k.store, k.bases)
	if err != nil {
		return fmt.Errorf("%s; listing the tables failed: %w", what, err)
	}
	return unknownTable(what, all)
}

func unknownTable(what string, all []kb.DocInfo) error {
	if len(all) == 0 {
		return fmt.Errorf("%s; the knowledge bases of this session hold no CSV, TSV or Excel document", what)
	}
	return fmt.Errorf("%s; the tables are: %s (give a dN id, a name or a path)", what, candidates(all))
}

// candidates names documents for an error: path and base, at most
// maxCandidates of them.
func candidates(docs []kb.DocInfo) string {
	n := min(len(docs), maxCandidates)
	parts := make([]string, 0, n+1)
	for _, d := range docs[:n] {
		parts = append(parts, fmt.Sprintf("%s (base %s)", d.Path, d.BaseName))
	}
	if len(docs) > n {
		parts = append(parts, fmt.Sprintf("and %d more", len(docs)-n))
	}
	return strings.Join(parts, ", ")
}

// inScope reports whether the document is in a base the session uses
// (bases name them by name or id, as the knowledge tools do).
func (k *kbTables) inScope(d kb.DocInfo) bool {
	for _, b := range k.bases {
		if b == d.BaseName || b == d.Base {
			return true
		}
	}
	return false
}

func (k *kbTables) names() string { return strings.Join(k.bases, ", ") }

// Content reads the document where it was ingested from and checks that
// it is still the version the base holds: the tools never compute on other
// figures than those the user added.
func (k *kbTables) Content(_ context.Context, d data.Document) ([]byte, error) {
	k.mu.Lock()
	info, ok := k.resolved[d.Key]
	k.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%s: not a document these data tools resolved", d.Name)
	}
	f, err := os.Open(info.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s was moved or deleted since it was added to the base %s: put it back, or add it where it is now with `moteur kb add %s PATH`",
			info.Path, info.BaseName, info.BaseName)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", info.Path, err)
	}
	defer f.Close()
	// One byte past the recorded size is enough to see that it changed,
	// and a file grown huge since is never read whole.
	raw, err := io.ReadAll(io.LimitReader(f, info.Size+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", info.Path, err)
	}
	sum := sha256.Sum256(raw)
	if int64(len(raw)) != info.Size || hex.EncodeToString(sum[:]) != info.SHA256 {
		return nil, fmt.Errorf("%s changed since it was added to the base %s: run `moteur kb add %s %s` again",
			info.Path, info.BaseName, info.BaseName, shellQuote(info.Path))
	}
	if !strings.EqualFold(filepath.Ext(info.Path), ".gz") {
		return raw, nil
	}
	return gunzip(info.Path, raw)
}

// gunzip decompresses a gzip-compressed table, within the bound kb had
// when it ingested it.
func gunzip(path string, raw []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: not gzip data: %w", path, err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, parse.MaxDecompressedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: gzip data cut short or damaged: %w", path, err)
	}
	if int64(len(out)) > parse.MaxDecompressedBytes {
		return nil, fmt.Errorf("%s decompresses to more than %d bytes: refused", path, int64(parse.MaxDecompressedBytes))
	}
	return out, nil
}

// shellQuote quotes a path for a command the user may paste.
func shellQuote(p string) string {
	if p != "" && !strings.ContainsAny(p, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// tableFileName is the name the data tools read a document by: its file
// name, without the .gz of a compressed one, with the extension of its
// format when the file's does not say it (a workbook recognised by its
// content).
func tableFileName(d kb.DocInfo) string {
	name := filepath.Base(d.Path)
	if strings.EqualFold(filepath.Ext(name), ".gz") {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch d.Format {
	case "xlsx":
		if ext != ".xlsx" && ext != ".xlsm" {
			name += ".xlsx"
		}
	case "csv":
		if ext != ".csv" && ext != ".tsv" && ext != ".tab" {
			name += ".csv"
		}
	}
	return name
}

// tableKind is how the prompt names a table's format.
func tableKind(d kb.DocInfo) string {
	switch strings.ToLower(filepath.Ext(tableFileName(d))) {
	case ".tsv", ".tab":
		return "TSV"
	case ".xlsx", ".xlsm":
		return "Excel"
	}
	return "CSV"
}

// tableRef gives a document its alias, as the knowledge tools do, so that
// the data tools' results cite the same dN.
func tableRef(t *cite.Table, d kb.DocInfo) cite.Ref {
	r := cite.Ref{Kind: cite.Document, ID: d.ID, Base: d.Base, BaseName: d.BaseName, Document: d.ID,
		Title: d.Title, Path: d.Path}
	r.Alias = t.Alias(r)
	return r
}

// tabularDocuments lists the CSV, TSV and Excel documents of bases, base
// by base, by title.
func tabularDocuments(ctx context.Context, store docLister, bases []string) ([]kb.DocInfo, error) {
	var out []kb.DocInfo
	for _, b := range bases {
		docs, err := store.DocumentsOfFormat(ctx, b, tabularFormatList...)
		if err != nil {
			return nil, fmt.Errorf("list the tables of %s: %w", b, err)
		}
		out = append(out, docs...)
	}
	return out, nil
}

// dataPrompt is the prompt section of the data tools: the tables in
// scope, and how to query them. withList says list_documents is offered
// (it finds the tables the section leaves out); cite asks for citations.
func dataPrompt(l i18n.Lang, tables []kb.DocInfo, withList, cite bool) string {
	var b strings.Builder
	b.WriteString(i18n.Tr(l, "Tables of the knowledge bases (CSV, TSV, Excel), which data_schema and data_analysis read:"))
	for _, d := range tables[:min(len(tables), maxListedTables)] {
		b.WriteString("\n")
		b.WriteString(i18n.Trf(l, "- %s (base %s, %s): %s", tableFileName(d), d.BaseName, tableKind(d), d.Path))
	}
	if n := len(tables) - maxListedTables; n > 0 {
		b.WriteString("\n")
		if withList {
			b.WriteString(i18n.Trf(l, "- and %d more, which list_documents finds", n))
		} else {
			b.WriteString(i18n.Trf(l, "- and %d more", n))
		}
	}
	b.WriteString("\n")
	b.WriteString(i18n.Tr(l, "To answer from a table, compute the figures with SQL rather than reading rows: first data_schema with the document "+
		"(its dN id, or its name or path as listed here) for its columns and their types, then data_analysis with one SQL SELECT (SQLite dialect) "+
		"on the table `dataset`, which is always the document's table: never put its id or its name in the SQL."))
	if cite {
		b.WriteString(" ")
		b.WriteString(i18n.Tr(l, "Cite each figure with the document's id in brackets, like [d2], as the tools' results give it."))
	}
	return b.String()
}
