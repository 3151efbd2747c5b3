package data

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moteur/moteur/cite"
	"github.com/moteur/moteur/tools"
)

// fakeDocs serves documents by alias and counts the reads.
type fakeDocs struct {
	mu    sync.Mutex
	docs  map[string]fakeDoc
	reads int
}

type fakeDoc struct {
	name string
	data []byte
}

func newFakeDocs() *fakeDocs { return &fakeDocs{docs: map[string]fakeDoc{}} }

func (f *fakeDocs) add(alias, name string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs[alias] = fakeDoc{name: name, data: data}
}

func (f *fakeDocs) Resolve(_ context.Context, id string) (Document, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.docs[id]
	if !ok {
		return Document{}, fmt.Errorf("unknown document %q: use a dN id from search_knowledge or list_documents", id)
	}
	return Document{Key: "stored-" + id, Name: d.name, Ref: cite.Ref{Alias: id, Kind: cite.Document, ID: "stored-" + id}}, nil
}

func (f *fakeDocs) Content(_ context.Context, d Document) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.docs[strings.TrimPrefix(d.Key, "stored-")].data, nil
}

// harness is a Set over fake documents, with its two tools.
type harness struct {
	t        *testing.T
	docs     *fakeDocs
	set      *Set
	schema   tools.Tool
	analysis tools.Tool
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	docs := newFakeDocs()
	cfg.Documents = docs
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ts := s.Tools()
	return &harness{t: t, docs: docs, set: s, schema: ts[0], analysis: ts[1]}
}

func (h *harness) call(tool tools.Tool, args map[string]any) tools.Result {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	r, err := tool.Execute(context.Background(), raw)
	if err != nil {
		h.t.Fatalf("%s: %v", tool.Name(), err)
	}
	return r
}

// sql runs a query that must succeed.
func (h *harness) sql(id, query string) string {
	h.t.Helper()
	r := h.call(h.analysis, map[string]any{"knowledge_id": id, "sql": query})
	if r.IsError {
		h.t.Fatalf("%s: unexpected error: %s", query, r.Content)
	}
	return r.Content
}

// refused runs a query that must fail, and returns the message.
func (h *harness) refused(id, query string) string {
	h.t.Helper()
	r := h.call(h.analysis, map[string]any{"knowledge_id": id, "sql": query})
	if !r.IsError {
		h.t.Fatalf("%s: ran, want an error:\n%s", query, r.Content)
	}
	return r.Content
}

// schemaOf returns data_schema's text, which must not be an error.
func (h *harness) schemaOf(id string) string {
	h.t.Helper()
	r := h.call(h.schema, map[string]any{"knowledge_id": id})
	if r.IsError {
		h.t.Fatalf("data_schema %s: %s", id, r.Content)
	}
	return r.Content
}

// single returns the one cell of a one-row, one-column result.
func single(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "|---") && i+1 < len(lines) {
			return strings.TrimSpace(strings.Trim(lines[i+1], "|"))
		}
	}
	t.Fatalf("no table in:\n%s", out)
	return ""
}

func TestCSVMixedTypesAreInferred(t *testing.T) {
	h := newHarness(t, Config{})
	csv := "Ville,Population,Surface (km²),Fondée le,Code,Remarque\n" +
		"Paris,2133111,105.4,2024-01-31,075,capitale\n" +
		"Lyon,522250,47.87,2023-12-01,069,12\n" +
		"Nice,348085,71,2022-06-15,006,\n"
	h.docs.add("d1", "villes.csv", []byte(csv))
	schema := h.schemaOf("d1")
	for _, want := range []string{
		"| ville | TEXT |", "| population | INTEGER |", "| surface_km | REAL |",
		"| fondee_le | TEXT (ISO date) |", "| code | TEXT |", "| remarque | TEXT |",
		"3 rows, 6 columns", "table `dataset`",
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
	got := single(t, h.sql("d1", "SELECT typeof(population) || ',' || typeof(surface_km) || ',' || code || ',' || typeof(remarque) FROM dataset WHERE ville = 'Lyon'"))
	if got != "integer,real,069,text" {
		t.Errorf("Lyon's types = %q, want integer,real,069,text", got)
	}
	if got := single(t, h.sql("d1", "SELECT SUM(population) FROM dataset")); got != "3003446" {
		t.Errorf("SUM(population) = %s", got)
	}
	if got := single(t, h.sql("d1", "SELECT remarque IS NULL FROM dataset WHERE ville = 'Nice'")); got != "1" {
		t.Errorf("an empty cell is not NULL: %s", got)
	}
}

func TestFrenchCSVWithBOMAndDecimalComma(t *testing.T) {
	h := newHarness(t, Config{})
	// Windows-1252 "Prénom", ';' delimiter, decimal comma, day-first dates.
	data := []byte("Pr\xe9nom;Montant;Date\r\nAnn;3,5;31/01/2024\r\nBob;10;01/02/2024\r\n")
	h.docs.add("d1", "export.csv", data)
	schema := h.schemaOf("d1")
	for _, want := range []string{"| prenom | TEXT |", "| montant | REAL |", "| date | TEXT (ISO date) |", "Windows-1252"} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
	if got := single(t, h.sql("d1", "SELECT date FROM dataset WHERE prenom = 'Bob'")); got != "2024-02-01" {
		t.Errorf("01/02/2024 read as %s, want day-first 2024-02-01", got)
	}
	if got := single(t, h.sql("d1", "SELECT SUM(montant) FROM dataset")); got != "13.5" {
		t.Errorf("SUM(montant) = %s", got)
	}

	bom := append([]byte{0xEF, 0xBB, 0xBF}, "id,name\n1,a\n"...)
	h.docs.add("d2", "bom.csv", bom)
	if !strings.Contains(h.schemaOf("d2"), "| id | INTEGER |") {
		t.Errorf("the BOM is part of the first column's name:\n%s", h.schemaOf("d2"))
	}
}

func TestTSV(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "scores.tsv", []byte("name\tscore, final\nann\t1.5\nbob\t2\n"))
	schema := h.schemaOf("d1")
	if !strings.Contains(schema, "| score_final | REAL |") || !strings.Contains(schema, "(TSV)") {
		t.Fatalf("TSV not split on tabs:\n%s", schema)
	}
	if got := single(t, h.sql("d1", "SELECT name FROM dataset ORDER BY score_final DESC LIMIT 1")); got != "bob" {
		t.Errorf("top score = %s", got)
	}
}

func TestColumnNamesNormalised(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "names.csv", []byte("Name,name,,2024,Order,  Chiffre d'affaires (€) ,name_2,NAME\nx,y,z,1,2,3,4,5\n"))
	schema := h.schemaOf("d1")
	for _, want := range []string{"| name |", "| name_2 |", "| name_2_2 |", "| name_3 |", "| column_3 |", "| c_2024 |", "| order_ |", "| chiffre_d_affaires |"} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
	if got := single(t, h.sql("d1", "SELECT name || name_2 || column_3 || c_2024 || order_ || chiffre_d_affaires FROM dataset")); got != "xyz123" {
		t.Errorf("row = %s", got)
	}
}

func TestInconsistentRowsArePaddedAndReported(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "ragged.csv", []byte("a,b,c\n1,2,3\n4,5\n6,7,8,9\n"))
	schema := h.schemaOf("d1")
	for _, want := range []string{"1 rows have fewer cells", "1 rows have more cells", "| column_4 | INTEGER |", "3 rows, 4 columns"} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
	if got := single(t, h.sql("d1", "SELECT COALESCE(c, 'null') FROM dataset WHERE a = 4")); got != "null" {
		t.Errorf("the missing cell = %s, want NULL", got)
	}
	if got := single(t, h.sql("d1", "SELECT column_4 FROM dataset WHERE a = 6")); got != "9" {
		t.Errorf("the extra cell = %s, want 9", got)
	}
}

func TestNoData(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "empty.csv", []byte("\n\n  \n"))
	r := h.call(h.schema, map[string]any{"knowledge_id": "d1"})
	if !r.IsError || !strings.Contains(r.Content, "no data") {
		t.Errorf("empty CSV: %+v", r)
	}
	if _, err := parseDelimited("empty.csv", nil, 0); !errors.Is(err, ErrNoData) {
		t.Errorf("empty CSV: %v, want ErrNoData", err)
	}
	h.docs.add("d2", "header.csv", []byte("a,b\n"))
	if out := h.schemaOf("d2"); !strings.Contains(out, "0 rows, 2 columns") {
		t.Errorf("a header without rows is a table without rows:\n%s", out)
	}
	h.docs.add("d3", "notes.pdf", []byte("%PDF-1.4"))
	if r := h.call(h.schema, map[string]any{"knowledge_id": "d3"}); !r.IsError || !strings.Contains(r.Content, "not a CSV, TSV or XLSX") {
		t.Errorf("PDF: %+v", r)
	}
	if r := h.call(h.schema, map[string]any{"knowledge_id": "d9"}); !r.IsError || !strings.Contains(r.Content, "unknown document") {
		t.Errorf("unknown id: %+v", r)
	}
}

func TestRowCapSaysHowManyWereCut(t *testing.T) {
	h := newHarness(t, Config{MaxRows: 50})
	var b strings.Builder
	b.WriteString("n,label\n")
	for i := range 500 {
		fmt.Fprintf(&b, "%d,row %d\n", i, i)
	}
	h.docs.add("d1", "many.csv", []byte(b.String()))
	out := h.sql("d1", "SELECT * FROM dataset ORDER BY n")
	if !strings.Contains(out, "500 rows; 50 shown, 450 not shown") {
		t.Errorf("cap not reported:\n%s", out[len(out)-300:])
	}
	if !strings.Contains(out, "| 49 | row 49 |") || strings.Contains(out, "| 50 | row 50 |") {
		t.Errorf("wrong rows shown")
	}
	if got := strings.Count(out, "\n| "); got != 51 { // header + 50 rows
		t.Errorf("%d table lines, want 51", got)
	}

	// The output budget cuts sooner than the row cap, and says so.
	small := newHarness(t, Config{Budget: 1000})
	small.docs.add("d1", "many.csv", []byte(b.String()))
	out = small.sql("d1", "SELECT * FROM dataset")
	if !strings.Contains(out, "500 rows;") || len([]rune(out)) > 1000 {
		t.Errorf("budget not kept (%d runes):\n%s", len([]rune(out)), out)
	}
}

func TestDatasetIsLoadedOnceAndDroppedAtClose(t *testing.T) {
	h := newHarness(t, Config{})
	h.docs.add("d1", "a.csv", []byte("x\n1\n2\n"))
	h.schemaOf("d1")
	h.sql("d1", "SELECT COUNT(*) FROM dataset")
	if h.docs.reads != 1 {
		t.Errorf("document read %d times, want once", h.docs.reads)
	}
	var ds *dataset
	if _, err := h.set.with(context.Background(), "d1", func(_ Document, d *dataset) error { ds = d; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := h.set.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ds.db.Ping(); err == nil {
		t.Error("the database is still open after Close")
	}
	r := h.call(h.analysis, map[string]any{"knowledge_id": "d1", "sql": "SELECT 1"})
	if !r.IsError || !strings.Contains(r.Content, ErrClosed.Error()) {
		t.Errorf("call after Close: %+v", r)
	}
}

func TestLeastRecentlyUsedDatasetIsClosed(t *testing.T) {
	h := newHarness(t, Config{MaxDatasets: 2})
	for _, id := range []string{"d1", "d2", "d3"} {
		h.docs.add(id, id+".csv", []byte("x\n1\n"))
	}
	h.schemaOf("d1")
	h.schemaOf("d2")
	h.schemaOf("d1") // d2 is now the least recently used
	h.schemaOf("d3")
	h.schemaOf("d1")
	if h.docs.reads != 3 {
		t.Errorf("reads = %d, want 3 (d1 kept)", h.docs.reads)
	}
	h.schemaOf("d2")
	if h.docs.reads != 4 {
		t.Errorf("reads = %d, want 4 (d2 was evicted)", h.docs.reads)
	}
}

func TestReferencesAndTimeout(t *testing.T) {
	h := newHarness(t, Config{Timeout: time.Second})
	h.docs.add("d1", "a.csv", []byte("x\n1\n"))
	r := h.call(h.analysis, map[string]any{"knowledge_id": "d1", "sql": "SELECT x FROM dataset"})
	if len(r.References) != 1 || r.References[0].Alias != "d1" {
		t.Errorf("references = %+v", r.References)
	}
	if to, ok := h.analysis.(tools.TimeoutOverrider); !ok || to.Timeout() < 2*time.Second {
		t.Errorf("the call's deadline does not cover loading and the query")
	}
}
