package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moteur/moteur/kb/parse"
	"github.com/moteur/moteur/policy"
	"github.com/moteur/moteur/provider"
	"github.com/moteur/moteur/session"
)

func TestIngestFolderThenSearch(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	rep := mustIngest(t, s, "docs", writeFiles(t, handbook))
	if rep.Added != len(handbook) || rep.Failed != 0 || rep.Chunks < len(handbook) {
		t.Fatalf("report %+v", rep)
	}
	b, err := s.Base(context.Background(), "docs")
	if err != nil {
		t.Fatal(err)
	}
	if b.Documents != len(handbook) || b.Chunks != rep.Chunks {
		t.Fatalf("base counts %d docs %d chunks, report %d chunks", b.Documents, b.Chunks, rep.Chunks)
	}
	res := search(t, s, Query{Text: "combien de jours de conges par an", Bases: []string{"docs"}})
	if len(res.Hits) == 0 || res.Hits[0].Title != "Congés payés" {
		t.Fatalf("hits: %s", titles(res.Hits))
	}
	if res.RequestedMode != ModeHybrid || len(res.Fallbacks) != 1 || res.Fallbacks[0].To != ModeKeyword {
		t.Fatalf("a keyword-only base searched in hybrid mode must report the fallback: %+v", res)
	}
}

func TestUnchangedFileSkippedChangedReplaced(t *testing.T) {
	emb := newBag()
	s := openTest(t, Config{Embedder: emb})
	mustCreate(t, s, "docs", CreateOptions{})
	dir := writeFiles(t, map[string]string{"a.md": "# A\n\nLe mot ancien apparaît ici.\n"})
	mustIngest(t, s, "docs", dir)
	calls := emb.calls.Load()
	rep := mustIngest(t, s, "docs", dir)
	if rep.Unchanged != 1 || rep.Added+rep.Updated != 0 || emb.calls.Load() != calls {
		t.Fatalf("unchanged file re-indexed: %+v, embed calls %d → %d", rep, calls, emb.calls.Load())
	}
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nLe mot nouveau remplace tout.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := mustIngest(t, s, "docs", dir); rep.Updated != 1 {
		t.Fatalf("changed file: %+v", rep)
	}
	if res := search(t, s, Query{Text: "ancien", Mode: ModeKeyword}); len(res.Hits) != 0 {
		t.Fatalf("the old version is still indexed: %+v", res.Hits)
	}
	if res := search(t, s, Query{Text: "nouveau", Mode: ModeKeyword}); len(res.Hits) != 1 {
		t.Fatalf("the new version is not indexed: %+v", res.Hits)
	}
	b, _ := s.Base(context.Background(), "docs")
	if b.Documents != 1 {
		t.Fatalf("%d documents after re-ingest, want 1", b.Documents)
	}
}

// A re-ingest that fails half-way (the embedding server refuses the new
// version) leaves the old version whole.
func TestFailedReingestKeepsOldVersion(t *testing.T) {
	emb := newBag()
	s := openTest(t, Config{Embedder: emb})
	mustCreate(t, s, "docs", CreateOptions{})
	dir := writeFiles(t, map[string]string{"a.md": "# A\n\nPremière version du texte.\n"})
	mustIngest(t, s, "docs", dir)
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\nSeconde version.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	emb.fail = func([]string) error { return errors.New("503 service unavailable") }
	rep := mustIngest(t, s, "docs", dir)
	if rep.Failed != 1 || !strings.Contains(rep.Files[0].Error, "503") {
		t.Fatalf("report %+v", rep)
	}
	emb.fail = nil
	res := search(t, s, Query{Text: "première version", Mode: ModeKeyword})
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Text, "Première") {
		t.Fatalf("old version lost: %+v", res.Hits)
	}
}

func TestBadFilesReportedOthersIngested(t *testing.T) {
	files := map[string]string{
		"good.md":     "# Bon\n\nUn document lisible sur la sécurité.\n",
		"empty.txt":   "",
		"binary.bin":  "\x00\x01\x02ELF\x00\x00",
		"corrupt.pdf": "%PDF-1.4\nthis is not a pdf at all",
		"latin1.txt":  "Caf\xe9 cr\xe8me et s\xe9curit\xe9 r\xe9seau.",
		"broken.docx": "PK\x03\x04 not really a zip",
	}
	dir := writeFiles(t, files)
	// An encrypted DOCX is an OLE compound file whose directory names the
	// EncryptionInfo stream (UTF-16LE).
	ole := append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 600)...)
	for _, r := range "EncryptionInfo" {
		ole = append(ole, byte(r), 0)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.docx"), ole, 0o644); err != nil {
		t.Fatal(err)
	}
	// A 1 GB file, sparse: refused from its size, never read.
	big, err := os.Create(filepath.Join(dir, "huge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()

	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	rep := mustIngest(t, s, "docs", dir)
	status := map[string]FileReport{}
	for _, f := range rep.Files {
		status[filepath.Base(f.Path)] = f
	}
	for name, want := range map[string]string{
		"empty.txt": "empty", "binary.bin": "binary", "corrupt.pdf": "corrupt", "broken.docx": "corrupt",
		"secret.docx": "encrypted", "huge.txt": "too large",
	} {
		f := status[name]
		if f.Status != StatusFailed || !strings.Contains(strings.ToLower(f.Error), want) {
			t.Errorf("%s: %s %q, want failed with %q", name, f.Status, f.Error, want)
		}
	}
	if f := status["good.md"]; f.Status != StatusAdded {
		t.Errorf("good.md: %+v", f)
	}
	if f := status["latin1.txt"]; f.Status != StatusAdded || len(f.Warnings) == 0 {
		t.Errorf("latin1.txt: %+v, want added with an encoding warning", f)
	}
	if res := search(t, s, Query{Text: "securite reseau", Mode: ModeKeyword}); len(res.Hits) == 0 {
		t.Error("the Windows-1252 file's text is not searchable")
	}
	b, _ := s.Base(context.Background(), "docs")
	if b.Documents != 2 {
		t.Errorf("%d documents stored, want the 2 readable ones", b.Documents)
	}
}

func TestMissingPathStopsBeforeStarting(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	_, err := s.Ingest(context.Background(), "docs", []string{filepath.Join(t.TempDir(), "nope")}, IngestOptions{})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v", err)
	}
}

// A file that disappears between the folder walk and its reading is
// reported, and the others are ingested.
func TestVanishingFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"})
	files, err := collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "a.md")); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, Config{})
	b := mustCreate(t, s, "docs", CreateOptions{})
	var reports []FileReport
	err = s.ingestAll(context.Background(), b, files, IngestOptions{}, nil, func(_ int, fr FileReport) { reports = append(reports, fr) })
	if err != nil {
		t.Fatal(err)
	}
	failed, added := 0, 0
	for _, r := range reports {
		switch r.Status {
		case StatusFailed:
			failed++
			if !strings.Contains(r.Error, "no such file") {
				t.Errorf("error %q does not say the file is gone", r.Error)
			}
		case StatusAdded:
			added++
		}
	}
	if failed != 1 || added != 1 {
		t.Fatalf("reports %+v", reports)
	}
}

// Knowledge bases live in the session database: both open the same file.
func TestSharesTheSessionDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, Config{Path: path})
	mustCreate(t, s, "docs", CreateOptions{})
	ss, err := session.OpenSQLite(context.Background(), session.SQLiteConfig{Path: path})
	if err != nil {
		t.Fatalf("the session store refuses the file the knowledge bases use: %v", err)
	}
	ss.Close()
	s.Close()
	again := openTest(t, Config{Path: path})
	if _, err := again.Base(context.Background(), "docs"); err != nil {
		t.Fatal(err)
	}
}

func TestCreateErrors(t *testing.T) {
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	if _, err := s.Create(context.Background(), "docs", CreateOptions{}); !errors.Is(err, ErrExists) {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := s.Create(context.Background(), "../x", CreateOptions{}); err == nil {
		t.Error("a name with a slash was accepted")
	}
	if _, err := s.Create(context.Background(), "v", CreateOptions{NoKeyword: true}); err == nil {
		t.Error("a base with no index at all was accepted")
	}
	if _, err := s.Ingest(context.Background(), "missing", []string{"."}, IngestOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("ingest into a missing base: %v", err)
	}
	if err := s.Remove(context.Background(), "docs"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Base(context.Background(), "docs"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removed base still there: %v", err)
	}
}

func TestEmbedderModelMustMatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, Config{Path: path, Embedder: newBag()})
	mustCreate(t, s, "docs", CreateOptions{})
	s.Close()
	other := openTest(t, Config{Path: path, Embedder: &bagEmbedder{model: "other", dims: 64}})
	_, err := other.Ingest(context.Background(), "docs", []string{writeFiles(t, handbook)}, IngestOptions{})
	if err == nil || !strings.Contains(err.Error(), "bag-64") {
		t.Fatalf("ingest with another embedding model: %v", err)
	}
}

// Documents are written in group commits; one the database refuses fails
// alone, and the others of its batch are stored.
func TestGroupCommitIsolatesAFailure(t *testing.T) {
	files := map[string]string{"bad.md": "# Bad\n\nrefused\n"}
	for i := range 6 {
		files[fmt.Sprintf("good%d.md", i)] = fmt.Sprintf("# Good %d\n\nfine\n", i)
	}
	s := openTest(t, Config{})
	mustCreate(t, s, "docs", CreateOptions{})
	db, err := sql.Open("sqlite", "file:"+s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON kb_documents WHEN NEW.path LIKE '%bad.md'
		BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, files)
	paths, err := collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Base(context.Background(), "docs")
	var batch []*prepared
	for _, p := range paths {
		batch = append(batch, s.prepareFile(context.Background(), b, p, parse.Limits{}, nil))
	}
	s.commit(context.Background(), b, batch) // one batch: the failure must not take the others along
	added := 0
	for _, p := range batch {
		switch {
		case strings.HasSuffix(p.fr.Path, "bad.md"):
			if p.fr.Status != StatusFailed || !strings.Contains(p.fr.Error, "refused by the test") {
				t.Fatalf("bad.md: %+v", p.fr)
			}
		case p.fr.Status == StatusAdded:
			added++
		}
	}
	b, _ = s.Base(context.Background(), "docs")
	if added != 6 || b.Documents != 6 {
		t.Fatalf("%d reported added, %d documents stored, want 6", added, b.Documents)
	}
}

// An embedding server that still fails after its retries stops the
// ingestion: the other files would only wait for the same retries.
func TestEmbedderDownStopsTheIngestion(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("f%02d.md", i)] = fmt.Sprintf("# F%d\n\ntexte %d\n", i, i)
	}
	emb := newBag()
	emb.fail = func([]string) error {
		return &provider.Error{Provider: "embed", Kind: provider.Transient, Message: "connection refused"}
	}
	s := openTest(t, Config{Embedder: emb})
	mustCreate(t, s, "docs", CreateOptions{})
	rep, err := s.Ingest(context.Background(), "docs", []string{writeFiles(t, files)}, IngestOptions{Workers: 1})
	if !errors.Is(err, ErrEmbedderDown) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err = %v", err)
	}
	if calls := emb.calls.Load(); calls > 3 {
		t.Fatalf("%d embedding calls after the server was found down", calls)
	}
	if rep.Failed == 0 || rep.Added != 0 {
		t.Fatalf("report %+v", rep)
	}
	// A refusal concerns its file only.
	emb.fail = func(texts []string) error {
		if strings.Contains(strings.Join(texts, " "), "F3\n") {
			return fmt.Errorf("refused: %w", errors.New("marking"))
		}
		return nil
	}
	rep, err = s.Ingest(context.Background(), "docs", []string{writeFiles(t, files)}, IngestOptions{})
	if err != nil || rep.Failed != 1 || rep.Added != 39 {
		t.Fatalf("report %+v, %v", rep, err)
	}
}

// Secrets are masked before anything is stored or embedded: the database
// never holds them, and a search shows the mask.
func TestSecretsMaskedBeforeStoring(t *testing.T) {
	const key = "sk-proj-Ab3dEfGh1jKlMnOpQrStUvWx"
	emb := newBag()
	var embedded []string
	emb.fail = func(texts []string) error { embedded = append(embedded, texts...); return nil }
	s := openTest(t, Config{Embedder: emb})
	mustCreate(t, s, "docs", CreateOptions{})
	rep := mustIngest(t, s, "docs", writeFiles(t, map[string]string{"deploy.md": "# Déploiement\n\nExporter OPENAI_API_KEY=" + key + " avant le script de déploiement.\n"}))
	if rep.Added != 1 || len(rep.Files[0].Warnings) == 0 || !strings.Contains(rep.Files[0].Warnings[0], "secrets masked") {
		t.Fatalf("report %+v", rep)
	}
	res := search(t, s, Query{Text: "script de déploiement", Mode: ModeKeyword})
	if len(res.Hits) != 1 || strings.Contains(res.Hits[0].Text, key) || !strings.Contains(res.Hits[0].Text, "[REDACTED") {
		t.Fatalf("hits %+v", res.Hits)
	}
	if strings.Contains(strings.Join(embedded, " "), key) {
		t.Fatal("the secret was sent to the embedding server")
	}
	s.Close()
	raw, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(s.path + "-wal")
	if strings.Contains(string(raw)+string(wal), key) {
		t.Fatal("the database file holds the secret")
	}
}

// A document under a classified path carries its rule to every hit; adding
// or removing the rule re-stores an unchanged file.
func TestClassifiedPaths(t *testing.T) {
	dir := writeFiles(t, map[string]string{"secret/fusion.md": "# Fusion\n\nLa fusion est prévue en mars.\n", "open.md": "# Ouvert\n\nLa fusion des équipes ouvertes.\n"})
	rule := "path:secret/**"
	classify := func(p string) (string, bool) { return rule, strings.Contains(p, "/secret/") }
	path := filepath.Join(t.TempDir(), "moteur.db")
	s := openTest(t, Config{Path: path, Classify: classify})
	mustCreate(t, s, "docs", CreateOptions{})
	mustIngest(t, s, "docs", dir)
	res := search(t, s, Query{Text: "fusion", Mode: ModeKeyword})
	got := map[string]string{}
	for _, h := range res.Hits {
		got[h.Title] = h.Classified
	}
	if got["Fusion"] != rule || got["Ouvert"] != "" {
		t.Fatalf("classification of hits %v", got)
	}
	s.Close()
	plain := openTest(t, Config{Path: path})
	rep := mustIngest(t, plain, "docs", dir)
	if rep.Updated != 1 || rep.Unchanged != 1 {
		t.Fatalf("rule removed: %+v, want the classified file re-stored", rep)
	}
}

// refusingEmbedder refuses, as a remote server's client must, the texts of
// classified documents.
type refusingEmbedder struct{ *bagEmbedder }

func (r refusingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if rule, ok := ClassifiedFrom(ctx); ok {
		return nil, &policy.Refusal{Rule: rule, Reason: "not local"}
	}
	return r.bagEmbedder.Embed(ctx, texts)
}

func (r refusingEmbedder) Rerank(ctx context.Context, _ string, docs []string) ([]float64, error) {
	if rule, ok := ClassifiedFrom(ctx); ok {
		return nil, &policy.Refusal{Rule: rule, Reason: "not local"}
	}
	return make([]float64, len(docs)), nil
}

func TestClassifiedTextsAreMarkedForTheModels(t *testing.T) {
	dir := writeFiles(t, map[string]string{"secret/fusion.md": "# Fusion\n\nLa fusion est prévue en mars.\n", "open.md": "# Ouvert\n\nLa fusion des équipes ouvertes.\n"})
	classify := func(p string) (string, bool) { return "path:secret/**", strings.Contains(p, "/secret/") }
	emb := refusingEmbedder{newBag()}
	s := openTest(t, Config{Embedder: emb, Classify: classify})
	mustCreate(t, s, "docs", CreateOptions{})
	rep := mustIngest(t, s, "docs", dir)
	if rep.Added != 1 || rep.Failed != 1 || !strings.Contains(rep.Files[1].Error+rep.Files[0].Error, "path:secret/**") {
		t.Fatalf("report %+v", rep)
	}
	// A reranker refusing classified candidates is skipped, and said so.
	plain := openTest(t, Config{Reranker: emb, Classify: classify})
	mustCreate(t, plain, "docs", CreateOptions{})
	mustIngest(t, plain, "docs", dir)
	res := search(t, plain, Query{Text: "fusion", Mode: ModeKeyword})
	if res.Reranked || !strings.Contains(res.RerankSkipped, "path:secret/**") || len(res.Hits) != 2 {
		t.Fatalf("result %+v", res)
	}
}

func TestBaseJSONListsCapabilities(t *testing.T) {
	s := openTest(t, Config{Embedder: newBag()})
	b := mustCreate(t, s, "docs", CreateOptions{})
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"capabilities":["vector","keyword"]`) || !strings.Contains(string(out), `"name":"docs"`) {
		t.Fatalf("JSON %s", out)
	}
}
